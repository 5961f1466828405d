// SPDX-License-Identifier: Apache-2.0 OR MIT
/* snarkjs public.json: round trip, and strict rejections naming the index. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/public_json.h"
#include "tests/test_files.h"

static void expect_reject(const char *text, int code, const char *needle)
{
	fr_t *v = NULL;
	size_t n;
	cuzk_error err = { 0 };
	int rc = public_json_parse_mem(&v, &n, text, strlen(text), "public.json", &err);
	CHECK_MSG(rc == -code, "'%s': rc %d (%s)", text, rc, err.msg);
	CHECK_MSG(strstr(err.msg, needle) != NULL, "'%s': '%s' lacks '%s'", text, err.msg, needle);
	if (rc == 0)
		free(v);
}

int main(void)
{
	fr_t vals[3], *back;
	size_t n;
	cuzk_error err;
	fr_from_u64(&vals[0], 0);
	fr_from_u64(&vals[1], 33);
	fr_neg(&vals[2], &FR_ONE);  /* r − 1, the largest value */

	char path[256];
	test_temp_file(path, sizeof(path), "public");
	REQUIRE(public_json_write(vals, 3, path, &err) == 0);
	REQUIRE(public_json_read(&back, &n, path, &err) == 0);
	CHECK(n == 3);
	for (size_t i = 0; i < 3 && i < n; i++)
		CHECK(fr_eq(&back[i], &vals[i]));
	free(back);
	REQUIRE(public_json_write(vals, 0, path, &err) == 0);
	REQUIRE(public_json_read(&back, &n, path, &err) == 0);
	CHECK(n == 0 && back == NULL);
	unlink(path);

	const char *text = " [\"1\",\n\"52435875175126190479447740508185965837690552500527637822603658699938581184512\"] \n";
	REQUIRE(public_json_parse_mem(&back, &n, text, strlen(text), "p", &err) == 0);
	CHECK(n == 2 && fr_is_one(&back[0]) && fr_eq(&back[1], &vals[2]));
	free(back);

	expect_reject("", CUZK_E_FORMAT, "expected '['");
	expect_reject("{}", CUZK_E_FORMAT, "expected '['");
	expect_reject("[\"1\"", CUZK_E_FORMAT, "file ends");
	expect_reject("[\"1\",]", CUZK_E_FORMAT, "element 1");
	expect_reject("[\"1\" \"2\"]", CUZK_E_FORMAT, "expected ']'");
	expect_reject("[1]", CUZK_E_FORMAT, "element 0");
	expect_reject("[\"1\",\"-2\"]", CUZK_E_FORMAT, "element 1");
	expect_reject("[\"1\",\"2\",\"0x3\"]", CUZK_E_FORMAT, "element 2");
	expect_reject("[\"007\"]", CUZK_E_FORMAT, "not a canonical decimal");
	expect_reject("[\"\"]", CUZK_E_FORMAT, "element 0");
	expect_reject("[\"1\"] x", CUZK_E_FORMAT, "after the array");
	expect_reject("[\"1\",\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]",
		      CUZK_E_NONCANONICAL, "element 1");
	CHECK(public_json_read(&back, &n, "/nonexistent/public.json", &err) == -CUZK_E_NOTFOUND);
	CHECK_DONE();
}
