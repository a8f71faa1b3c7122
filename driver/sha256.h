/* sha256.h: SHA-256 (FIPS 180-4), the compile cache's key and its
 * entries' checksum: a collision would run the wrong code, so the hash
 * must be cryptographic, not merely well mixed. */
#ifndef PT_DRIVER_SHA256_H
#define PT_DRIVER_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct pt_sha256 {
	uint32_t h[8];
	uint64_t len;           /* bytes hashed so far */
	uint8_t buf[64];
	size_t nbuf;
} pt_sha256;

void pt_sha256_init(pt_sha256 *s);
void pt_sha256_update(pt_sha256 *s, const void *data, size_t n);
void pt_sha256_final(pt_sha256 *s, uint8_t out[32]);
/* The digest of data as 64 lowercase hex digits and a NUL. */
void pt_sha256_hex(const void *data, size_t n, char out[65]);
void pt_sha256_to_hex(const uint8_t d[32], char out[65]);

#endif
