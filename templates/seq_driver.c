/* @@BANNER@@
 *
 * The JSON dump driver for sequence_example @@NAME@@: reads TFRecord files
 * (plain, ZLIB or GZIP, detected) and prints one JSON object per record. */
#include "@@HEADER@@"

#include <featc/fc_driver.h>

int main(int argc, char **argv)
{
    return fc_driver_seq_main(argc, argv, &@@TYPE@@_desc);
}
