/* hmac.h: HMAC-SHA-256 (RFC 2104, FIPS 198-1), which authenticates the
 * compile cache's entries with the user's secret key: without the key
 * no one can make an entry that verifies, unlike a bare SHA-256. */
#ifndef PT_DRIVER_HMAC_H
#define PT_DRIVER_HMAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sha256.h"

typedef struct pt_hmac {
	pt_sha256 inner;
	uint8_t okey[64];   /* the key xor the outer pad */
} pt_hmac;

void pt_hmac_init(pt_hmac *h, const void *key, size_t keylen);
void pt_hmac_update(pt_hmac *h, const void *data, size_t n);
void pt_hmac_final(pt_hmac *h, uint8_t out[32]);
/* a == b for n bytes, in a time that does not depend on where they
 * differ (a MAC compared with memcmp leaks how much of it was right). */
bool pt_equal_secret(const uint8_t *a, const uint8_t *b, size_t n);

#endif
