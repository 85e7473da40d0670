/* @@BANNER@@ */
#include "@@HEADER@@"

#include <math.h>
#include <string.h>
@@MESSAGES@@
