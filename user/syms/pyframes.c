// SPDX-License-Identifier: GPL-2.0
/* pyframes.c: the Python function each thread of a CPython 3.11 process
 * runs (pyframes.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "common/names.h"
#include "proc_root.h"
#include "pyframes.h"

/* CPython 3.11's layout on 64-bit Linux (Include/internal/pycore_runtime.h,
 * pycore_interp.h, cpython/pystate.h, pycore_frame.h, cpython/code.h,
 * cpython/unicodeobject.h, cpython/object.h), as py-spy's bindings have
 * it; checked against a running python3.11 by the unit test. */
#define RT_INTERP_HEAD 40	/* _PyRuntime.interpreters.head */
#define IS_THREADS_HEAD 16	/* PyInterpreterState.threads.head */
#define TS_NEXT 8		/* PyThreadState.next */
#define TS_INTERP 16		/* PyThreadState.interp */
#define TS_CFRAME 56		/* PyThreadState.cframe */
#define TS_NATIVE_TID 160	/* PyThreadState.native_thread_id */
#define CF_CURRENT 8		/* _PyCFrame.current_frame */
#define IF_CODE 32		/* _PyInterpreterFrame.f_code */
#define OB_TYPE 8		/* PyObject.ob_type */
#define CO_FILENAME 112		/* PyCodeObject.co_filename */
#define CO_QUALNAME 128		/* PyCodeObject.co_qualname */
#define TP_NAME 24		/* PyTypeObject.tp_name */
#define U_LENGTH 16		/* PyASCIIObject.length */
#define U_STATE 32		/* PyASCIIObject.state: kind bits 2-4, compact 5, ascii 6 */
#define U_ASCII_DATA 48		/* a compact ASCII string's characters */

#define MAX_THREADS 512		/* thread states walked per read */
#define MAX_FUNCS 32		/* functions counted */
#define NAME_MAX_LEN 96

struct func_count {
	char name[2 * NAME_MAX_LEN];
	uint64_t polls;		/* thread-polls that found a thread in it */
	uint32_t tids[8];	/* the first threads seen in it */
	uint32_t ntids;
};

struct pyframes {
	pid_t pid;
	uint64_t runtime, code_type, str_type;	/* in the target */
	pthread_t thread;
	bool running;
	volatile bool stop;
	uint64_t polls, thread_polls, failed;
	struct func_count funcs[MAX_FUNCS];
	size_t nfuncs;
	uint64_t other_polls;	/* thread-polls of functions past MAX_FUNCS */
};

static int rd(const struct pyframes *pf, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	if (!addr || addr > (1ull << 47))
		return -EFAULT;
	return process_vm_readv(pf->pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

static uint64_t rd_ptr(const struct pyframes *pf, uint64_t addr)
{
	uint64_t v = 0;

	return rd(pf, addr, &v, sizeof(v)) ? 0 : v;
}

/* A compact ASCII str object's text, cut to size: anything else is not
 * read. */
static int rd_str(const struct pyframes *pf, uint64_t obj, char *buf, size_t size)
{
	uint64_t len;
	uint32_t state;

	if (!obj || rd_ptr(pf, obj + OB_TYPE) != pf->str_type || rd(pf, obj + U_STATE, &state, sizeof(state)))
		return -EINVAL;
	len = rd_ptr(pf, obj + U_LENGTH);
	if (!(state & (1u << 5)) || !(state & (1u << 6)) || len == 0 || len > (1u << 20))
		return -EINVAL;
	if (len >= size)
		len = size - 1;
	if (rd(pf, obj + U_ASCII_DATA, buf, len))
		return -EFAULT;
	buf[len] = '\0';
	ss_name_clean_array(buf, size);
	return 0;
}

/* "qualname (file basename)" of a thread state's current frame. */
static int thread_func(const struct pyframes *pf, uint64_t ts, char *buf, size_t size)
{
	uint64_t frame = rd_ptr(pf, rd_ptr(pf, ts + TS_CFRAME) + CF_CURRENT);
	uint64_t code = frame ? rd_ptr(pf, frame + IF_CODE) : 0;
	char qual[NAME_MAX_LEN], file[NAME_MAX_LEN];
	const char *base;

	if (!code || rd_ptr(pf, code + OB_TYPE) != pf->code_type ||
	    rd_str(pf, rd_ptr(pf, code + CO_QUALNAME), qual, sizeof(qual)))
		return -ENOENT;
	if (rd_str(pf, rd_ptr(pf, code + CO_FILENAME), file, sizeof(file)))
		snprintf(file, sizeof(file), "?");
	base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	snprintf(buf, size, "%s (%s)", qual, base);
	return 0;
}

int pyframes__read(struct pyframes *pf, void (*cb)(void *arg, uint32_t tid, const char *func), void *arg)
{
	uint64_t interp = rd_ptr(pf, pf->runtime + RT_INTERP_HEAD), ts;
	char func[2 * NAME_MAX_LEN];
	int n = 0;

	if (!interp)
		return -EFAULT;
	ts = rd_ptr(pf, interp + IS_THREADS_HEAD);
	for (int i = 0; ts && i < MAX_THREADS; i++, ts = rd_ptr(pf, ts + TS_NEXT)) {
		uint64_t tid = rd_ptr(pf, ts + TS_NATIVE_TID);

		/* a thread state of another interpreter, or not one at all */
		if (rd_ptr(pf, ts + TS_INTERP) != interp)
			return n ? n : -EFAULT;
		if (tid && tid < (1u << 30) && !thread_func(pf, ts, func, sizeof(func))) {
			cb(arg, (uint32_t)tid, func);
			n++;
		}
	}
	return n;
}

/* The mapping of CPython's interpreter: "python3.X" or "libpython3.X.so",
 * the address its file offset 0 is mapped at, and its minor version. */
static int find_interpreter(const char *proc_root, pid_t pid, char *path, size_t size, uint64_t *base,
			    int *minor)
{
	char maps[64], line[4096];
	int found = -ENOENT;
	FILE *f;

	snprintf(maps, sizeof(maps), "%s/%d/maps", proc_root, pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	/* libpython when the executable links it (its python3.X is then a
	 * stub without the interpreter's symbols) */
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, off;
		const char *p = strchr(line, '/'), *b;
		int m;

		if (!p || sscanf(line, "%llx-%*x %*s %llx", &lo, &off) != 2 || off)
			continue;
		b = strrchr(p, '/') + 1;
		if (sscanf(b, "libpython3.%d", &m) != 1 && (!found || sscanf(b, "python3.%d", &m) != 1))
			continue;
		snprintf(path, size, "%.*s", (int)strcspn(p, "\n"), p);
		*base = lo;
		*minor = m;
		found = 0;
	}
	fclose(f);
	return found;
}

/* The three symbols' values in the file, and its first PT_LOAD's vaddr. */
static int read_symbols(int fd, uint64_t *rt, uint64_t *code, uint64_t *str, uint64_t *load)
{
	Elf *e = elf_version(EV_CURRENT) == EV_NONE ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	size_t nph = 0;
	GElf_Shdr sh;
	GElf_Phdr ph;

	*rt = *code = *str = *load = 0;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph)) {
		elf_end(e);
		return -ENOEXEC;
	}
	for (size_t i = 0; i < nph && i < 64; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
			*load = ph.p_vaddr - ph.p_offset;
			break;
		}
	while ((scn = elf_nextscn(e, scn)) && gelf_getshdr(scn, &sh)) {
		Elf_Data *d = sh.sh_type == SHT_DYNSYM ? elf_getdata(scn, NULL) : NULL;
		size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;

		for (size_t i = 0; i < n; i++) {
			GElf_Sym s;
			const char *name = gelf_getsym(d, (int)i, &s) ? elf_strptr(e, sh.sh_link, s.st_name) : NULL;

			if (!name || !s.st_value)
				continue;
			if (!strcmp(name, "_PyRuntime"))
				*rt = s.st_value;
			else if (!strcmp(name, "PyCode_Type"))
				*code = s.st_value;
			else if (!strcmp(name, "PyUnicode_Type"))
				*str = s.st_value;
		}
	}
	elf_end(e);
	return *rt && *code && *str ? 0 : -ENOENT;
}

/* A type object's tp_name is name: the symbols and the layout fit. */
static bool type_named(const struct pyframes *pf, uint64_t type, const char *name)
{
	char buf[8] = { 0 };

	return !rd(pf, rd_ptr(pf, type + TP_NAME), buf, strlen(name) + 1) && !strcmp(buf, name);
}

int pyframes__open(const char *proc_root, pid_t pid, struct pyframes **out, char *why, size_t size)
{
	uint64_t base = 0, load, rt, code, str;
	char path[1024], root[64];
	struct pyframes *pf;
	int minor = 0, err, rfd, fd;

	*out = NULL;
	err = find_interpreter(proc_root, pid, path, sizeof(path), &base, &minor);
	if (err)
		return err == -ENOENT ? err : (snprintf(why, size, "cannot read its maps: %s", strerror(-err)), err);
	if (minor != 11) {
		snprintf(why, size, "CPython 3.%d: spinscope reads the frames of CPython 3.11 only", minor);
		return -ENOTSUP;
	}
	snprintf(root, sizeof(root), "%s/%d/root", proc_root, pid);
	rfd = open(root, O_PATH | O_CLOEXEC);
	fd = rfd >= 0 ? proc_root__open(rfd, path, O_RDONLY) : -errno;
	if (rfd >= 0)
		close(rfd);
	err = fd < 0 ? fd : read_symbols(fd, &rt, &code, &str, &load);
	if (fd >= 0)
		close(fd);
	if (err) {
		snprintf(why, size, "its interpreter's symbols (_PyRuntime, PyCode_Type) cannot be read: %s",
			 strerror(-err));
		return -ENOEXEC;	/* not -ENOENT: it is named as CPython */
	}
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return -ENOMEM;
	pf->pid = pid;
	pf->runtime = base - load + rt;
	pf->code_type = base - load + code;
	pf->str_type = base - load + str;
	if (!type_named(pf, pf->code_type, "code") || !type_named(pf, pf->str_type, "str")) {
		snprintf(why, size, "its memory does not hold CPython 3.11's types where its symbols say (%s)",
			 errno ? strerror(errno) : "not read");
		free(pf);
		return -EPROTO;
	}
	*out = pf;
	return 0;
}

static void count(void *arg, uint32_t tid, const char *func)
{
	struct pyframes *pf = arg;
	struct func_count *c = NULL;

	pf->thread_polls++;
	for (size_t i = 0; !c && i < pf->nfuncs; i++)
		if (!strcmp(pf->funcs[i].name, func))
			c = &pf->funcs[i];
	if (!c && pf->nfuncs < MAX_FUNCS) {
		c = &pf->funcs[pf->nfuncs++];
		snprintf(c->name, sizeof(c->name), "%s", func);
	}
	if (!c) {
		pf->other_polls++;
		return;
	}
	c->polls++;
	for (uint32_t i = 0; i < c->ntids; i++)
		if (c->tids[i] == tid)
			return;
	if (c->ntids < sizeof(c->tids) / sizeof(c->tids[0]))
		c->tids[c->ntids++] = tid;
}

static void *poll_thread(void *arg)
{
	struct pyframes *pf = arg;
	struct timespec step = { 0, PYFRAMES_POLL_MS * 1000000L };

	while (!pf->stop) {
		pf->polls++;
		if (pyframes__read(pf, count, pf) < 0)
			pf->failed++;
		nanosleep(&step, NULL);
	}
	return NULL;
}

int pyframes__start(struct pyframes *pf)
{
	int err = pthread_create(&pf->thread, NULL, poll_thread, pf);

	pf->running = !err;
	return -err;
}

void pyframes__stop(struct pyframes *pf)
{
	if (!pf || !pf->running)
		return;
	pf->stop = true;
	pthread_join(pf->thread, NULL);
	pf->running = false;
}

bool pyframes__summary(const struct pyframes *pf, char *buf, size_t size)
{
	bool shown[MAX_FUNCS] = { 0 };
	size_t len = 0;

	buf[0] = '\0';
	if (!pf->thread_polls) {
		snprintf(buf, size, "no Python frame read in %llu polls", (unsigned long long)pf->polls);
		return false;
	}
	for (int k = 0; k < 2; k++) {
		const struct func_count *best = NULL;
		size_t bi = 0;

		for (size_t i = 0; i < pf->nfuncs; i++)
			if (!shown[i] && (!best || pf->funcs[i].polls > best->polls))
				best = &pf->funcs[i], bi = i;
		if (!best || len >= size)
			break;
		shown[bi] = true;
		len += (size_t)snprintf(buf + len, size - len, "%s%s: %u thread%s%s, %.0f%% of the polls",
					len ? "; " : "", best->name, best->ntids, best->ntids == 1 ? "" : "s",
					best->ntids == sizeof(best->tids) / sizeof(best->tids[0]) ? " or more" : "",
					100.0 * (double)best->polls / (double)pf->thread_polls);
	}
	return true;
}

void pyframes__close(struct pyframes *pf)
{
	pyframes__stop(pf);
	free(pf);
}
