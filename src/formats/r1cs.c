// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "formats/r1cs.h"

#include <stdlib.h>
#include <string.h>

static void matrix_free(r1cs_matrix *m)
{
	free(m->off);
	free(m->terms);
	m->off = NULL;
	m->terms = NULL;
}

void r1cs_free(r1cs *cs)
{
	if (!cs)
		return;
	matrix_free(&cs->a);
	matrix_free(&cs->b);
	matrix_free(&cs->c);
	memset(cs, 0, sizeof(*cs));
}
