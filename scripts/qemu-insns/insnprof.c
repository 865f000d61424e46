/* QEMU TCG plugin (API version 1, QEMU 7.2): guest instructions executed,
   per function (the ELF symbol of each translation block's first
   instruction) and, with "insns=N", the N most executed instructions with
   their disassembly. Printed at exit to stderr, most executed first:
     total <instructions>
     fn <instructions> <symbol>
     insn <count> <address> <symbol> <disassembly>
   Arguments: "top=N" functions listed (default 25), "insns=N" (default 0).
   Declarations written from the documented plugin API. */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*tb_trans_cb)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*udata_cb)(qemu_plugin_id_t, void *);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
const char *qemu_plugin_insn_symbol(const struct qemu_plugin_insn *insn);
char *qemu_plugin_insn_disas(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn, enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One counter per translation (a block translated twice gets two; the
   report sums them by symbol or address). Allocated, never freed: the
   process ends with the report. */
struct block {
	uint64_t execs;
	uint64_t n;
	const char *sym;
	struct block *next;
};

struct insn {
	uint64_t count;
	uint64_t addr;
	const char *sym;
	char *disas;
	struct insn *next;
};

static struct block *blocks;
static struct insn *insns;
static long top = 25, ninsns;

static void trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b = calloc(1, sizeof *b);
	const char *s = qemu_plugin_insn_symbol(qemu_plugin_tb_get_insn(tb, 0));
	b->n = n;
	b->sym = s ? s : "?";
	b->next = blocks;
	blocks = b;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->execs, 1);
	if (ninsns == 0)
		return;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
		struct insn *r = calloc(1, sizeof *r);
		const char *is = qemu_plugin_insn_symbol(in);
		r->addr = qemu_plugin_insn_vaddr(in);
		r->sym = is ? is : "?";
		r->disas = qemu_plugin_insn_disas(in);
		r->next = insns;
		insns = r;
		qemu_plugin_register_vcpu_insn_exec_inline(in, QEMU_PLUGIN_INLINE_ADD_U64, &r->count, 1);
	}
}

struct total {
	const char *key;
	uint64_t addr;
	uint64_t count;
	const char *disas;
};

static int bycount(const void *a, const void *b) {
	const struct total *x = a, *y = b;
	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int bykey(const void *a, const void *b) {
	const struct total *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* merge sorts t by (key, addr), sums equal neighbours, sorts by count and
   returns the number of distinct entries. */
static size_t merge(struct total *t, size_t n) {
	size_t m = 0;
	qsort(t, n, sizeof *t, bykey);
	for (size_t i = 0; i < n; i++) {
		if (m > 0 && t[m - 1].addr == t[i].addr && strcmp(t[m - 1].key, t[i].key) == 0)
			t[m - 1].count += t[i].count;
		else
			t[m++] = t[i];
	}
	qsort(t, m, sizeof *t, bycount);
	return m;
}

static void done(qemu_plugin_id_t id, void *p) {
	size_t n = 0, i;
	uint64_t sum = 0;
	struct block *b;
	struct insn *r;
	struct total *t;
	for (b = blocks; b; b = b->next)
		n++;
	t = calloc(n + 1, sizeof *t);
	i = 0;
	for (b = blocks; b; b = b->next, i++) {
		t[i].key = b->sym;
		t[i].count = b->execs * b->n;
		sum += t[i].count;
	}
	n = merge(t, n);
	fprintf(stderr, "total %llu\n", (unsigned long long)sum);
	for (i = 0; i < n && i < (size_t)top; i++)
		fprintf(stderr, "fn %llu %s\n", (unsigned long long)t[i].count, t[i].key);
	free(t);
	if (ninsns == 0)
		return;
	n = 0;
	for (r = insns; r; r = r->next)
		n++;
	t = calloc(n + 1, sizeof *t);
	i = 0;
	for (r = insns; r; r = r->next, i++) {
		t[i].key = r->sym;
		t[i].addr = r->addr;
		t[i].count = r->count;
		t[i].disas = r->disas;
	}
	n = merge(t, n);
	for (i = 0; i < n && i < (size_t)ninsns; i++)
		fprintf(stderr, "insn %llu %#llx %s %s\n", (unsigned long long)t[i].count,
			(unsigned long long)t[i].addr, t[i].key, t[i].disas ? t[i].disas : "?");
	free(t);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], "top=", 4) == 0)
			top = strtol(argv[i] + 4, NULL, 10);
		else if (strncmp(argv[i], "insns=", 6) == 0)
			ninsns = strtol(argv[i] + 6, NULL, 10);
		else {
			fprintf(stderr, "insnprof: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, trans);
	qemu_plugin_register_atexit_cb(id, done, NULL);
	return 0;
}
