/* Whether big buffers (huge.c, fc_input.h) are maps of huge pages: on
 * Linux, but not under AddressSanitizer, whose checks stop at maps (there
 * FC_HUGE_HEAP: they are malloc's, and so is what is cut from them).
 * Private to the hosted layer. */
#ifndef FEATC_HUGE_H
#define FEATC_HUGE_H

#if defined(__SANITIZE_ADDRESS__)
#define FC_HUGE_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FC_HUGE_HEAP 1
#endif
#endif

#endif
