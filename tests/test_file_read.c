/* test_file_read.c - Check unit tests for file_read.c: whole files come back
 * exactly, NUL-terminated, whether read or mapped, and a mapped file that
 * shrinks under ptoopt ends the run with a read error, not a crash. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptoopt/file_read.h"

/* A temporary file of n bytes that are never NUL; its path in path[]. */
static void make_file(char *path, size_t size, size_t n)
{
	snprintf(path, size, "/tmp/ptoopt-test-file-read-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "wb");
	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < n; i++)
		fputc('a' + (int)(i * 7 % 26), f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Small files are read; from 256 KB on they are mapped.  The sizes around
 * that bound and around page ends, where the NUL after the text comes from
 * the file's last page or from the page after it, all read back exactly. */
START_TEST(whole_file_with_nul)
{
	static const size_t sizes[] = { 1, 4096, 262143, 262144, 262145, 266240, 270335, 300001 };
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		char path[64];
		make_file(path, sizeof path, sizes[k]);
		size_t len = 0;
		bool too_big = true;
		char *text = file_read(path, (size_t)1 << 30, &len, &too_big);
		ck_assert_ptr_nonnull(text);
		ck_assert(!too_big);
		ck_assert_uint_eq(len, sizes[k]);
		for (size_t i = 0; i < len; i++)
			if (text[i] != 'a' + (int)(i * 7 % 26))
				ck_abort_msg("size %zu: byte %zu differs", sizes[k], i);
		ck_assert_int_eq(text[len], 0);
		file_free(text);
		unlink(path);
	}
}
END_TEST

START_TEST(limit_applies_to_mapped_files)
{
	char path[64];
	make_file(path, sizeof path, 300000);
	size_t len = 0;
	bool too_big = false;
	ck_assert_ptr_null(file_read(path, 299999, &len, &too_big));
	ck_assert(too_big);
	unlink(path);
}
END_TEST

static char marker[64];
static void remove_marker(void) { unlink(marker); }

/* Truncating a mapped file and then reading its lost part: the child prints
 * a located read error, runs the cleanup hook and exits with 1. */
START_TEST(shrinking_mapped_file_is_a_read_error)
{
	char path[64];
	make_file(path, sizeof path, 300000);
	make_file(marker, sizeof marker, 1);
	int err[2];
	ck_assert_int_eq(pipe(err), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(err[1], 2);
		file_set_truncation_cleanup(remove_marker);
		size_t len;
		bool too_big;
		char *text = file_read(path, (size_t)1 << 30, &len, &too_big);
		if (!text || truncate(path, 0) != 0)
			_exit(3);
		volatile char c = text[len - 1]; /* in a page the file lost */
		(void)c;
		_exit(0);
	}
	close(err[1]);
	char msg[512] = { 0 };
	size_t got = 0;
	ssize_t r;
	while (got < sizeof msg - 1 && (r = read(err[0], msg + got, sizeof msg - 1 - got)) > 0)
		got += (size_t)r;
	close(err[0]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	char want[160];
	snprintf(want, sizeof want, "ptoopt: error: cannot read '%s': the file shrank while it was being read\n", path);
	ck_assert_str_eq(msg, want);
	ck_assert_int_ne(access(marker, F_OK), 0); /* the hook ran */
	unlink(path);
}
END_TEST

static Suite *file_read_suite(void)
{
	Suite *s = suite_create("file_read");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, whole_file_with_nul);
	tcase_add_test(tc, limit_applies_to_mapped_files);
	tcase_add_test(tc, shrinking_mapped_file_is_a_read_error);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(file_read_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
