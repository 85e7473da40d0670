/* @@BANNER@@ */
#include "@@HEADER@@"

#include <featc/fc_fast.h>

#include <math.h>
#include <string.h>
@@MESSAGES@@
