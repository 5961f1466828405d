// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The proof kinds table (kinds.h).  File names from rust-fil-proofs'
 * parameters.json (and lotus' build/proof-params/parameters.json, which adds
 * the empty-sector-update files); WindowPoSt and WinningPoSt share a tree
 * shape, and are told apart by their size: WinningPoSt's files are ~0.2 GB,
 * WindowPoSt's ~57 GB for 32 GiB sectors. */
#include <string.h>

#include "cuzk.h"
#include "ipc/kinds.h"

#define GIB (UINT64_C(1) << 30)

const struct kind kind_table[] = {
	{ "porep-32g",
	  "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
	  "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params",
	  "PoRep commit phase 2, 32 GiB sectors", 32 * GIB },
	{ "porep-64g",
	  "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
	  "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params",
	  "PoRep commit phase 2, 64 GiB sectors", 64 * GIB },
	{ "window-post-32g",
	  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
	  "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params",
	  "WindowPoSt, 32 GiB sectors", 32 * GIB },
	{ "window-post-64g",
	  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
	  "2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.params",
	  "WindowPoSt, 64 GiB sectors", 64 * GIB },
	{ "winning-post-32g",
	  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
	  "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.params",
	  "WinningPoSt, 32 GiB sectors", 32 * GIB },
	{ "winning-post-64g",
	  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
	  "b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.params",
	  "WinningPoSt, 64 GiB sectors", 64 * GIB },
	{ "snap-32g",
	  "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
	  "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params",
	  "SnapDeals (empty sector update), 32 GiB sectors", 32 * GIB },
	{ "snap-64g",
	  "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
	  "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params",
	  "SnapDeals (empty sector update), 64 GiB sectors", 64 * GIB },
	{ NULL, NULL, NULL, 0 },
};

const struct kind *kind_by_name(const char *name)
{
	for (const struct kind *k = kind_table; k->name; k++)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

const struct kind *kind_by_params(const char *params)
{
	for (const struct kind *k = kind_table; k->name; k++)
		if (strcmp(k->params, params) == 0)
			return k;
	return NULL;
}

const char *cuzk_kind_params(const char *kind)
{
	const struct kind *k = kind ? kind_by_name(kind) : NULL;
	return k ? k->params : NULL;
}
