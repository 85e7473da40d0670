/* The embedded test's port for a bare Thumb-2 program run by qemu-arm
 * (user mode): no C library, output and exit through the two Linux system
 * calls qemu-arm emulates (write = 4, exit = 1, by svc 0).  On a board the
 * same two functions would go to a UART and a reset. */
#include <stddef.h>

void emb_write(const char *s, size_t n);
int emb_run(void);
void _start(void);

/* Linux's EABI: the number in r7, arguments in r0-r2, result in r0.  r7 is
 * the Thumb frame pointer, which clang will not give up to a register
 * variable: written in assembly, r7 saved and restored around the call. */
long emb_syscall(long number, long a, long b, long c);
__asm__(".text\n"
        ".thumb\n"
        ".global emb_syscall\n"
        ".type emb_syscall, %function\n"
        ".thumb_func\n"
        "emb_syscall:\n"
        "    push {r7}\n"
        "    mov r7, r0\n"
        "    mov r0, r1\n"
        "    mov r1, r2\n"
        "    mov r2, r3\n"
        "    svc 0\n"
        "    pop {r7}\n"
        "    bx lr\n");

void emb_write(const char *s, size_t n)
{
    while (n > 0) {
        long k = emb_syscall(4, 1, (long)s, (long)n);
        if (k <= 0)
            emb_syscall(1, 3, 0, 0);
        s += k;
        n -= (size_t)k;
    }
}

void _start(void)
{
    emb_syscall(1, emb_run(), 0, 0);
    for (;;) {
    }
}
