/* hmac.c: HMAC-SHA-256 (see hmac.h). */
#include <string.h>

#include "hmac.h"

void pt_hmac_init(pt_hmac *h, const void *key, size_t keylen)
{
	uint8_t k[64] = {0}, ipad[64];
	if (keylen > 64) {   /* a long key is hashed first (RFC 2104) */
		pt_sha256 s;
		pt_sha256_init(&s);
		pt_sha256_update(&s, key, keylen);
		pt_sha256_final(&s, k);
	} else if (keylen) {
		memcpy(k, key, keylen);
	}
	for (int i = 0; i < 64; i++) {
		ipad[i] = k[i] ^ 0x36;
		h->okey[i] = k[i] ^ 0x5c;
	}
	pt_sha256_init(&h->inner);
	pt_sha256_update(&h->inner, ipad, 64);
	/* the key does not outlive its use on the stack */
	volatile uint8_t *v = k;
	for (int i = 0; i < 64; i++)
		v[i] = 0;
}

void pt_hmac_update(pt_hmac *h, const void *data, size_t n)
{
	pt_sha256_update(&h->inner, data, n);
}

void pt_hmac_final(pt_hmac *h, uint8_t out[32])
{
	uint8_t in[32];
	pt_sha256_final(&h->inner, in);
	pt_sha256 outer;
	pt_sha256_init(&outer);
	pt_sha256_update(&outer, h->okey, 64);
	pt_sha256_update(&outer, in, 32);
	pt_sha256_final(&outer, out);
	volatile uint8_t *v = h->okey;
	for (int i = 0; i < 64; i++)
		v[i] = 0;
}

bool pt_equal_secret(const uint8_t *a, const uint8_t *b, size_t n)
{
	volatile uint8_t d = 0;
	for (size_t i = 0; i < n; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}
