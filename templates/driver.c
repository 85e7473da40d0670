/* @@BANNER@@
 *
 * The JSON dump driver for @@KIND@@ @@NAME@@: reads TFRecord files
 * (plain, ZLIB or GZIP, detected) and prints one JSON object per record. */
#include "@@HEADER@@"

#include <featc/fc_driver.h>

int main(int argc, char **argv)
{
    return @@DRIVER_MAIN@@(argc, argv, &@@TYPE@@_desc);
}
