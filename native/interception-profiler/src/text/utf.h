/* UTF-8 and UTF-16: the one validator and the two converters the profiler uses (metadata
 * names from generations, Windows paths and environment values). No allocation, no locale. */
#ifndef AIP_TEXT_UTF_H
#define AIP_TEXT_UTF_H

#include <stddef.h>
#include <stdint.h>

/* 1 when bytes[0 .. length) is well-formed UTF-8 without NUL characters: no overlong forms,
 * no surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no sequence cut by the end. 0
 * otherwise. bytes may be NULL when length is 0. */
int aip_utf8_valid(const uint8_t *bytes, size_t length);

/* Converts in[0 .. length), which must satisfy aip_utf8_valid, to UTF-16 (supplementary
 * characters as surrogate pairs) and always writes a terminating 0 after the units. Returns
 * the number of units written, the terminating 0 excluded; -1 when the input is not valid
 * or the units and their terminating 0 do not fit in capacity units. */
int aip_utf8_to_utf16(const uint8_t *in, size_t length, uint16_t *out, size_t capacity);

/* Converts the 0-terminated UTF-16 string in to 0-terminated UTF-8. An unpaired surrogate
 * becomes U+FFFD, as the Windows converter does without WC_ERR_INVALID_CHARS. Returns the
 * number of bytes written, the terminating NUL excluded; -2 when they and the NUL do not fit
 * in capacity bytes (the "does not fit" of aip_getenv in platform.h), out then holding the
 * empty string if capacity > 0. */
int aip_utf16_to_utf8(const uint16_t *in, char *out, size_t capacity);

#endif
