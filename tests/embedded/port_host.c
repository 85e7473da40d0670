/* The embedded test's port for the host: output to stdout. */
#include <stdio.h>

void emb_write(const char *s, size_t n);
int emb_run(void);

void emb_write(const char *s, size_t n)
{
    fwrite(s, 1, n, stdout);
}

int main(void)
{
    int rc = emb_run();
    return fflush(stdout) == 0 && !ferror(stdout) ? rc : 1;
}
