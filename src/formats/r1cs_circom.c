// SPDX-License-Identifier: Apache-2.0 OR MIT
/* circom's binary .r1cs, version 1 (iden3's r1csfile format):
 *   "r1cs" u32 version u32 nSections, then sections (u32 type, u64 size, body)
 *   type 1 header: u32 n8, prime, u32 nWires, nPubOut, nPubIn, nPrvIn,
 *                  u64 nLabels, u32 mConstraints
 *   type 2 constraints: per constraint A, B, C, each u32 nTerms and
 *                  nTerms × (u32 wire, n8-byte LE canonical coefficient)
 *   type 3 wire-to-label map: skipped when reading.
 * Integers little-endian. */
#include <stdlib.h>
#include <string.h>

#include "formats/byte_io.h"
#include "formats/circom_field.h"
#include "formats/r1cs.h"

#define SEC_HEADER 1
#define SEC_CONSTRAINTS 2
#define SEC_WIRE2LABEL 3
#define TERM_BYTES (4 + CIRCOM_FIELD_BYTES)
#define HEADER_BODY_BYTES (4 + CIRCOM_FIELD_BYTES + 4 * 4 + 8 + 4)

static const char *const matrix_names[3] = { "A", "B", "C" };

struct circom_header {
	uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in;
	uint64_t n_labels;
	uint32_t m_constraints;
};

static int read_header(struct circom_header *h, byte_reader *r, cuzk_error *err)
{
	const char *sec = "header";
	int rc;
	if ((rc = circom_read_field(r, sec, err)) < 0 ||
	    (rc = byte_reader_u32le(r, &h->n_wires, sec, "nWires", err)) < 0 ||
	    (rc = byte_reader_u32le(r, &h->n_pub_out, sec, "nPubOut", err)) < 0 ||
	    (rc = byte_reader_u32le(r, &h->n_pub_in, sec, "nPubIn", err)) < 0 ||
	    (rc = byte_reader_u32le(r, &h->n_prv_in, sec, "nPrvIn", err)) < 0 ||
	    (rc = byte_reader_u64le(r, &h->n_labels, sec, "nLabels", err)) < 0 ||
	    (rc = byte_reader_u32le(r, &h->m_constraints, sec, "mConstraints", err)) < 0)
		return rc;
	uint64_t named = 1 + (uint64_t)h->n_pub_out + h->n_pub_in + h->n_prv_in;
	if (named > h->n_wires)
		return err_fail(err, CUZK_E_FORMAT,
				"%s: section header: nWires %u is less than 1 + nPubOut + nPubIn + nPrvIn = %llu",
				r->name, h->n_wires, (unsigned long long)named);
	return 0;
}

/* First pass: checks every term count against the section and sums them,
 * so that nothing is allocated for terms the file does not hold. */
static int count_terms(byte_reader r, uint32_t m, size_t totals[3], cuzk_error *err)
{
	const char *sec = "constraints";
	int rc = byte_reader_need_n(&r, m, 3 * 4, sec, "mConstraints", err);
	if (rc < 0)
		return rc;
	totals[0] = totals[1] = totals[2] = 0;
	for (uint32_t k = 0; k < m; k++)
		for (int mat = 0; mat < 3; mat++) {
			uint32_t n;
			if ((rc = byte_reader_u32le(&r, &n, sec, "term count", err)) < 0)
				return rc;
			/* n < 2^32, so n * TERM_BYTES cannot overflow 64 bits. */
			if ((uint64_t)n * TERM_BYTES > byte_reader_left(&r))
				return err_fail(err, CUZK_E_FORMAT,
						"%s: section constraints: constraint %u %s: %u terms need %llu bytes at offset %zu but the section has %zu left",
						r.name, k, matrix_names[mat], n,
						(unsigned long long)n * TERM_BYTES, r.pos, byte_reader_left(&r));
			r.pos += (size_t)n * TERM_BYTES;
			totals[mat] += n;
		}
	if (byte_reader_left(&r) != 0)
		return err_fail(err, CUZK_E_FORMAT, "%s: section constraints: %zu stray bytes at offset %zu",
				r.name, byte_reader_left(&r), r.pos);
	return 0;
}

/* Second pass: the terms, with wires and coefficients checked. */
static int fill_terms(byte_reader r, r1cs *cs, uint32_t m, uint32_t n_wires, cuzk_error *err)
{
	r1cs_matrix *mats[3] = { &cs->a, &cs->b, &cs->c };
	size_t at[3] = { 0, 0, 0 };
	for (uint32_t k = 0; k < m; k++)
		for (int mat = 0; mat < 3; mat++) {
			uint32_t n;
			/* Bounds were checked by count_terms: read directly. */
			byte_reader_u32le(&r, &n, "constraints", "term count", NULL);
			mats[mat]->off[k] = at[mat];
			for (uint32_t t = 0; t < n; t++) {
				r1cs_term *term = &mats[mat]->terms[at[mat]++];
				uint32_t wire;
				size_t wire_at = r.pos;
				byte_reader_u32le(&r, &wire, "constraints", "wire", NULL);
				if (wire >= n_wires)
					return err_fail(err, CUZK_E_FORMAT,
							"%s: section constraints: constraint %u %s term %u at offset %zu: wire %u >= nWires %u",
							r.name, k, matrix_names[mat], t, wire_at, wire, n_wires);
				term->var = wire;
				if (fr_from_le_bytes(&term->coeff, r.buf + r.pos) < 0)
					return err_fail(err, CUZK_E_NONCANONICAL,
							"%s: section constraints: constraint %u %s term %u at offset %zu: coefficient >= r",
							r.name, k, matrix_names[mat], t, r.pos);
				r.pos += CIRCOM_FIELD_BYTES;
			}
		}
	for (int mat = 0; mat < 3; mat++)
		mats[mat]->off[m] = at[mat];
	return 0;
}

static int alloc_matrix(r1cs_matrix *mat, size_t rows, size_t terms)
{
	mat->off = malloc((rows + 1) * sizeof(*mat->off));
	mat->terms = malloc((terms ? terms : 1) * sizeof(*mat->terms));
	return mat->off && mat->terms ? 0 : -1;
}

int r1cs_parse_circom_mem(r1cs *ret, const uint8_t *buf, size_t len, const char *name, cuzk_error *err)
{
	byte_reader r = { buf, len, 0, name };
	circom_sections secs;
	int rc = circom_read_sections(&secs, &r, "r1cs", 1, SEC_WIRE2LABEL, err);
	if (rc < 0)
		return rc;
	if (!secs.start[SEC_HEADER])
		return err_fail(err, CUZK_E_FORMAT, "%s: no header section (type 1)", name);
	if (!secs.start[SEC_CONSTRAINTS])
		return err_fail(err, CUZK_E_FORMAT, "%s: no constraints section (type 2)", name);

	struct circom_header h;
	byte_reader hr = { buf, secs.end[SEC_HEADER], secs.start[SEC_HEADER], name };
	if ((rc = read_header(&h, &hr, err)) < 0)
		return rc;

	byte_reader cr = { buf, secs.end[SEC_CONSTRAINTS], secs.start[SEC_CONSTRAINTS], name };
	size_t totals[3];
	if ((rc = count_terms(cr, h.m_constraints, totals, err)) < 0)
		return rc;

	r1cs cs;
	memset(&cs, 0, sizeof(cs));
	cs.num_inputs = 1 + (size_t)h.n_pub_out + h.n_pub_in;
	cs.num_aux = h.n_wires - cs.num_inputs;
	cs.num_constraints = h.m_constraints;
	if (alloc_matrix(&cs.a, cs.num_constraints, totals[0]) < 0 ||
	    alloc_matrix(&cs.b, cs.num_constraints, totals[1]) < 0 ||
	    alloc_matrix(&cs.c, cs.num_constraints, totals[2]) < 0) {
		r1cs_free(&cs);
		return err_fail(err, CUZK_E_NOMEM, "%s: out of memory for %u constraints", name,
				h.m_constraints);
	}
	if ((rc = fill_terms(cr, &cs, h.m_constraints, h.n_wires, err)) < 0) {
		r1cs_free(&cs);
		return rc;
	}
	*ret = cs;
	return 0;
}

int r1cs_read_circom(r1cs *ret, const char *path, cuzk_error *err)
{
	file_map m;
	int rc = file_map_open(&m, path, err);
	if (rc < 0)
		return rc;
	rc = r1cs_parse_circom_mem(ret, m.buf, m.len, path, err);
	file_map_close(&m);
	return rc;
}

static uint64_t matrix_bytes(const r1cs_matrix *m, size_t rows)
{
	return 4 * (uint64_t)rows + TERM_BYTES * (uint64_t)(m->off[rows] - m->off[0]);
}

static void write_lc(byte_writer *w, const r1cs_matrix *m, size_t k)
{
	byte_writer_u32le(w, (uint32_t)(m->off[k + 1] - m->off[k]));
	for (size_t t = m->off[k]; t < m->off[k + 1]; t++) {
		uint8_t coeff[CIRCOM_FIELD_BYTES];
		byte_writer_u32le(w, (uint32_t)m->terms[t].var);
		fr_to_le_bytes(coeff, &m->terms[t].coeff);
		byte_writer_put(w, coeff, sizeof(coeff));
	}
}

int r1cs_write_circom(const r1cs *cs, const char *path, cuzk_error *err)
{
	size_t n_wires = cs->num_inputs + cs->num_aux;
	if (cs->num_inputs == 0 || n_wires > UINT32_MAX || cs->num_constraints > UINT32_MAX)
		return err_fail(err, CUZK_E_INVAL,
				"%s: %zu wires and %zu constraints do not fit circom's 32-bit counts", path,
				n_wires, cs->num_constraints);
	byte_writer w;
	int rc = byte_writer_open(&w, path, err);
	if (rc < 0)
		return rc;
	byte_writer_put(&w, "r1cs", 4);
	byte_writer_u32le(&w, 1);
	byte_writer_u32le(&w, 3);

	uint8_t prime[CIRCOM_FIELD_BYTES];
	circom_field_prime(prime);
	byte_writer_u32le(&w, SEC_HEADER);
	byte_writer_u64le(&w, HEADER_BODY_BYTES);
	byte_writer_u32le(&w, CIRCOM_FIELD_BYTES);
	byte_writer_put(&w, prime, sizeof(prime));
	byte_writer_u32le(&w, (uint32_t)n_wires);
	byte_writer_u32le(&w, 0);                          /* nPubOut: all publics as inputs */
	byte_writer_u32le(&w, (uint32_t)(cs->num_inputs - 1));
	byte_writer_u32le(&w, 0);                          /* nPrvIn */
	byte_writer_u64le(&w, n_wires);                    /* nLabels: one per wire */
	byte_writer_u32le(&w, (uint32_t)cs->num_constraints);

	byte_writer_u32le(&w, SEC_CONSTRAINTS);
	byte_writer_u64le(&w, matrix_bytes(&cs->a, cs->num_constraints) +
				      matrix_bytes(&cs->b, cs->num_constraints) +
				      matrix_bytes(&cs->c, cs->num_constraints));
	for (size_t k = 0; k < cs->num_constraints; k++) {
		write_lc(&w, &cs->a, k);
		write_lc(&w, &cs->b, k);
		write_lc(&w, &cs->c, k);
	}

	byte_writer_u32le(&w, SEC_WIRE2LABEL);
	byte_writer_u64le(&w, 8 * (uint64_t)n_wires);
	for (size_t i = 0; i < n_wires; i++)
		byte_writer_u64le(&w, i);
	return byte_writer_close(&w, err);
}
