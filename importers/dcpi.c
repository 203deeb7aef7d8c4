/* DCPI profiles (Digital Continuous Profiling Infrastructure, Alpha):
 * v0 binary profile files (dcpiformat(4), pdb-0.*), dcpicat text, and
 * profile database directories <db>/<epoch>/<platform>/<image>_<id>.
 *
 * Mapping (doc/formats.md, "DCPI"): the image is a load module; each
 * sampled address an instruction context below a "[unknown function]"
 * context of that module (DCPI has no call chains) below the entry; per
 * event two metrics: EVENT (estimated events = samples x period) and
 * "EVENT (samples)"; one profile per (platform, epoch). Header values
 * with no place in v4 go into the metric descriptions and the title. */
#include "pc.h"
#include "buf.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The largest sampling period and sample count read: DCPI's counts
 * are 32-bit (dcpiformat(4)), and so samples x period, the estimated
 * events, stays within 64 bits. */
#define DCPI_MAX UINT32_MAX

/* One profile's header, from either form. */
struct dhdr {
	char version[32];
	char image[64], name[256], path[1024], label[256];
	char epoch[32], platform[256];
	char event[128];
	uint64_t period, tstart, tsize, cpuspeed;
	int major;
	unsigned version_line;
	unsigned seen; /* bits of the required lines seen (v0) */
};

/* The address of count i of a chunk at offset off: Alpha instructions
 * are 4 bytes, so count i is the instruction 4*i bytes after the start.
 * The page does not say so; this is the one place that reads it. */
static uint64_t dcpi_addr(const struct dhdr *h, uint64_t off, uint64_t i)
{
	return h->tstart + off + 4 * i;
}

/* ---- the model side ---- */

/* The profile of (platform, epoch): NODE with the platform (physical:
 * a 32-bit hash of its name, as hpcrun uses host ids) and RANK with the
 * epoch (physical: its digits); logical ids number them in order of
 * appearance across everything read. */
static pc_id profile_of(struct pc_db *db, const struct dhdr *h)
{
	uint64_t node = pc_hash_bytes(h->platform, strlen(h->platform)) &
			0xffffffffu;
	uint64_t epoch = strtoull(h->epoch, NULL, 10);
	uint64_t nnode = 0, nrank = 0;
	int node_at = -1, rank_at = -1;
	for (size_t p = 0; p < db->nprofiles; p++) {
		const struct pc_profile *pr = &db->profiles[p];
		if (pr->nids != 2 || pr->ids[0].kind != PC_ID_NODE ||
		    pr->ids[1].kind != PC_ID_RANK)
			continue;
		if (pr->ids[0].physical == node && pr->ids[1].physical == epoch)
			return (pc_id)p;
		if (pr->ids[0].physical == node)
			node_at = (int)pr->ids[0].logical;
		if (pr->ids[1].physical == epoch)
			rank_at = (int)pr->ids[1].logical;
		nnode = pr->ids[0].logical + 1 > nnode ? pr->ids[0].logical + 1 :
							  nnode;
		nrank = pr->ids[1].logical + 1 > nrank ? pr->ids[1].logical + 1 :
							  nrank;
	}
	struct pc_idelem ids[2] = {
		{ .kind = PC_ID_NODE, .is_physical = 1,
		  .logical = node_at >= 0 ? (uint64_t)node_at : nnode,
		  .physical = node },
		{ .kind = PC_ID_RANK, .is_physical = 1,
		  .logical = rank_at >= 0 ? (uint64_t)rank_at : nrank,
		  .physical = epoch },
	};
	return pc_profile_add(db, ids, 2);
}

struct target {
	struct pc_db *db;
	pc_id profile, fnctx, module, est, raw;
	uint64_t period;
	/* fnctx was new and its children so far (any) have offsets up to
	 * last: a larger offset is a new child, appended without a lookup */
	int fresh, any;
	uint64_t last;
};

static void target_init(struct target *t, struct pc_db *db,
			const struct dhdr *h)
{
	t->db = db;
	t->period = h->period;
	const char *path = *h->path ? h->path : *h->name ? h->name : h->image;
	t->module = pc_module_get(db, path);
	pc_id fn = pc_function_get(db, "[unknown function]", t->module, 0,
				   PC_NONE, 0);
	struct pc_context k = { .kind = PC_CTX_FUNCTION, .rel = PC_REL_CALL,
				.function = fn, .file = PC_NONE,
				.module = PC_NONE };
	pc_id main = pc_ctx_entry(db, PC_ENTRY_MAIN);
	size_t n = db->ncontexts;
	t->fnctx = pc_ctx_child(db, main, &k);
	t->fresh = db->ncontexts > n;
	t->any = 0;
	t->last = 0;
	t->profile = profile_of(db, h);
	char desc[1024], name[300];
	snprintf(desc, sizeof desc, "DCPI event %s: estimated events "
		 "(samples x sampling period %llu); image %s", h->event,
		 (unsigned long long)h->period, h->image);
	t->est = pc_metric_get_whole(db, h->event, desc, "events");
	snprintf(name, sizeof name, "%s (samples)", h->event);
	snprintf(desc, sizeof desc, "DCPI event %s: samples (period %llu)",
		 h->event, (unsigned long long)h->period);
	t->raw = pc_metric_get_whole(db, name, desc, "samples");
	if (!db->title) {
		/* room for the longest fields (struct dhdr) */
		char title[2200], mhz[32] = "";
		if (h->cpuspeed)
			snprintf(mhz, sizeof mhz, ", %llu MHz",
				 (unsigned long long)h->cpuspeed);
		snprintf(title, sizeof title, "DCPI %s (image %s, platform %s, "
			 "epoch %s%s%s%s)", path, h->image, h->platform,
			 h->epoch, *h->label ? ", label " : "", h->label, mhz);
		db->title = pc_intern_cstr(db, title);
	}
}

static void target_add(struct target *t, uint64_t addr, uint64_t samples)
{
	if (!samples)
		return;
	struct pc_context k = { .kind = PC_CTX_INSTRUCTION,
				.rel = PC_REL_LEXICAL, .function = PC_NONE,
				.file = PC_NONE, .module = t->module,
				.offset = addr };
	pc_id c;
	if (t->fresh && (addr > t->last || !t->any)) {
		c = pc_ctx_append(t->db, t->fnctx, &k);
		t->last = addr;
		t->any = 1;
	} else {
		c = pc_ctx_child(t->db, t->fnctx, &k);
	}
	/* est's id is below raw's: values in order need no sort */
	pc_value_add(t->db, t->profile, c, t->est,
		     (double)samples * (double)t->period);
	pc_value_add(t->db, t->profile, c, t->raw, (double)samples);
}

/* ---- v0 binary profile files ---- */

enum { R_VERSION = 1, R_IMAGE = 2, R_EPOCH = 4, R_PLATFORM = 8,
       R_EVENT = 16, R_PERIOD = 32, R_TSTART = 64, R_TSIZE = 128,
       R_CPUSPEED = 256, R_ALL = 511 };

static const char *const required[] = {
	"version", "image", "epoch", "platform", "event", "period",
	"tstart", "tsize", "cpuspeed",
};

static int read_file(const char *path, unsigned char **buf, size_t *n,
		     struct pc_err *err)
{
	FILE *f = pc_fopen_file(path, err);
	if (!f)
		return -1;
	struct stat st;
	if (fstat(fileno(f), &st) != 0) {
		fclose(f);
		return pc_err_set(err, "%s: %s", path, strerror(errno));
	}
	*n = (size_t)st.st_size;
	*buf = pc_xmalloc(*n + 1);
	size_t got = fread(*buf, 1, *n, f);
	fclose(f);
	if (got != *n) {
		free(*buf);
		return pc_err_set(err, "%s: cannot read", path);
	}
	(*buf)[*n] = 0;
	return 0;
}

/* A header value into a field: -1 if it does not fit (never cut). */
static int copyv(char *d, size_t cap, const char *v)
{
	size_t n = strlen(v);
	if (n >= cap)
		return -1;
	memcpy(d, v, n + 1);
	return 0;
}

static int parse_u64(const char *s, int base, uint64_t *out)
{
	if (!*s)
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno || *end || *s == '-' || *s == '+')
		return -1;
	*out = v;
	return 0;
}

/* The header: "word value" lines up to "samples". Returns the offset of
 * the binary part, or 0 on error. */
static size_t v0_header(const char *path, const unsigned char *b, size_t n,
			struct dhdr *h, struct pc_err *err)
{
	size_t pos = 0;
	for (unsigned line = 1;; line++) {
		const unsigned char *nl = memchr(b + pos, '\n', n - pos);
		if (!nl) {
			pc_err_at_line(err, path, line, "no 'samples' line ends "
				       "the header");
			return 0;
		}
		size_t len = (size_t)(nl - (b + pos));
		char l[1200];
		if (len >= sizeof l) {
			pc_err_at_line(err, path, line, "header line longer "
				       "than %zu bytes", sizeof l - 1);
			return 0;
		}
		memcpy(l, b + pos, len);
		l[len] = 0;
		for (size_t i = 0; i < len; i++)
			if ((b[pos + i] < 0x20 && b[pos + i] != '\t') ||
			    b[pos + i] > 0x7e) {
				pc_err_at_line(err, path, line, "binary data in "
					       "the header: no 'samples' line "
					       "before it?");
				return 0;
			}
		pos += len + 1;
		char *v = l;
		while (*v && *v != ' ' && *v != '\t')
			v++;
		size_t kl = (size_t)(v - l);
		while (*v == ' ' || *v == '\t')
			*v++ = 0;
		l[kl] = 0;
		if (!strcmp(l, "samples")) {
			if (*v) {
				pc_err_at_line(err, path, line, "text after "
					       "'samples'");
				return 0;
			}
			break;
		}
		if (!kl || !*v) {
			pc_err_at_line(err, path, line, "header line '%s' "
				       "without a value", l);
			return 0;
		}
		unsigned bit = 0;
		for (unsigned k = 0; k < 9; k++)
			if (!strcmp(l, required[k]))
				bit = 1u << k;
		if (bit && bit != R_PERIOD && (h->seen & bit)) {
			pc_err_at_line(err, path, line, "'%s' given twice", l);
			return 0;
		}
		h->seen |= bit;
		int bad = 0;
		switch (bit) {
		case R_VERSION: {
			h->version_line = line;
			if (copyv(h->version, sizeof h->version, v) ||
			    strncmp(v, "pdb-", 4) || !(v[4] >= '0' && v[4] <= '9')) {
				bad = 1;
				break;
			}
			/* not atoi: pdb-4294967296 must not wrap to 0 */
			unsigned long major = strtoul(v + 4, NULL, 10);
			h->major = (int)(major > 1000 ? 1000 : major);
			break;
		}
		case R_IMAGE: bad = copyv(h->image, sizeof h->image, v); break;
		case R_EPOCH: bad = copyv(h->epoch, sizeof h->epoch, v); break;
		case R_PLATFORM:
			bad = copyv(h->platform, sizeof h->platform, v);
			break;
		case R_EVENT: bad = copyv(h->event, sizeof h->event, v); break;
		case R_PERIOD:
			bad = parse_u64(v, 10, &h->period);
			if (!bad && h->period > DCPI_MAX) {
				pc_err_at_line(err, path, line, "period %s is "
					       "above 2^32-1: samples x period "
					       "would not fit 64 bits", v);
				return 0;
			}
			break;
		case R_TSTART: bad = parse_u64(v, 16, &h->tstart); break;
		case R_TSIZE: bad = parse_u64(v, 10, &h->tsize); break;
		case R_CPUSPEED: bad = parse_u64(v, 10, &h->cpuspeed); break;
		default:
			if (!strcmp(l, "path"))
				bad = copyv(h->path, sizeof h->path, v);
			break; /* cpuamask, cpuimplv, cpucount, unknown */
		}
		if (bad) {
			pc_err_at_line(err, path, line, "bad or too long %s "
				       "'%.64s'", l, v);
			return 0;
		}
	}
	if (h->seen & R_VERSION && h->major != 0) {
		pc_err_at_line(err, path, h->version_line, "DCPI profile "
			       "version %s: the binary layout of major version "
			       "%d is not documented; convert the profile to "
			       "text with dcpicat and read that", h->version,
			       h->major);
		return 0;
	}
	for (unsigned k = 0; k < 9; k++)
		if (!(h->seen & (1u << k))) {
			pc_err_set(err, "%s: header has no '%s' line", path,
				   required[k]);
			return 0;
		}
	return pos;
}

static uint32_t u32le(const unsigned char *p)
{
	return (uint32_t)pc_getle(p, 4);
}

static uint32_t u32be(const unsigned char *p)
{
	return (uint32_t)pc_getbe(p, 4);
}

/* Walks the chunks in one byte order; with t, adds the samples. 0 if
 * the binary part is consistent, else -1 with the error in err. */
static int v0_chunks(const char *path, const unsigned char *b, size_t start,
		     size_t n, const struct dhdr *h,
		     uint32_t (*u32)(const unsigned char *), struct target *t,
		     struct pc_err *err)
{
	if (n - start < 8)
		return pc_err_at_off(err, path, start, "binary part shorter "
				     "than its 8-byte footer");
	size_t end = n - 8;
	uint64_t next = 0, prev = 0, addrs = 0;
	uint32_t sum = 0;
	int any = 0;
	for (size_t p = start; p < end;) {
		if (end - p < 8)
			return pc_err_at_off(err, path, p, "truncated chunk "
					     "header");
		uint64_t off = u32(b + p), num = u32(b + p + 4);
		if (any && off < next)
			return pc_err_at_off(err, path, p, "chunk offset 0x%llx "
					     "%s (offsets must increase, "
					     "chunks must not overlap)",
					     (unsigned long long)off,
					     off > prev ? "overlaps the previous "
							  "chunk" :
							  "goes down");
		if ((end - p - 8) / 4 < num)
			return pc_err_at_off(err, path, p, "truncated chunk: "
					     "%llu counts, %zu bytes left",
					     (unsigned long long)num,
					     end - p - 8);
		if (off + 4 * num > h->tsize)
			return pc_err_at_off(err, path, p, "chunk of %llu "
					     "counts at offset 0x%llx runs "
					     "past the text size %llu",
					     (unsigned long long)num,
					     (unsigned long long)off,
					     (unsigned long long)h->tsize);
		if (num && off + 4 * (num - 1) > UINT64_MAX - h->tstart)
			return pc_err_at_off(err, path, p, "chunk at offset "
					     "0x%llx leaves the address space: "
					     "tstart 0x%llx + offset passes 2^64",
					     (unsigned long long)off,
					     (unsigned long long)h->tstart);
		for (uint64_t i = 0; i < num; i++) {
			uint32_t c = u32(b + p + 8 + 4 * i);
			addrs += c != 0;
			sum += c;
			if (t)
				target_add(t, dcpi_addr(h, off, i), c);
		}
		next = off + 4 * num;
		prev = off;
		any = 1;
		p += 8 + 4 * num;
	}
	uint32_t fo = u32(b + end), fs = u32(b + end + 4);
	if (fo != (uint32_t)addrs || fs != sum)
		return pc_err_at_off(err, path, end, "footer says %u addresses "
				     "and %u samples; the chunks hold %llu and "
				     "%u", fo, fs, (unsigned long long)addrs,
				     sum);
	return 0;
}

static int read_v0(struct pc_db *db, const char *path, struct pc_err *err)
{
	unsigned char *b = NULL;
	size_t n = 0;
	if (read_file(path, &b, &n, err))
		return -1;
	struct dhdr h = { 0 };
	size_t start = v0_header(path, b, n, &h, err);
	int rc = -1;
	if (start) {
		/* DCPI wrote on Alpha (little-endian). A part consistent only
		 * when read big-endian is not what it wrote: refused, not
		 * guessed. */
		rc = v0_chunks(path, b, start, n, &h, u32le, NULL, err);
		struct pc_err be = { 0 };
		if (rc && !v0_chunks(path, b, start, n, &h, u32be, NULL, &be))
			pc_err_at_off(err, path, start, "the samples are "
				      "consistent only when read big-endian; "
				      "DCPI wrote them little-endian (Alpha): "
				      "not guessing");
		if (!rc) {
			struct target t;
			target_init(&t, db, &h);
			rc = v0_chunks(path, b, start, n, &h, u32le, &t, err);
		}
	}
	free(b);
	return rc;
}

/* ---- dcpicat text ---- */

static int read_dcpicat(struct pc_db *db, const char *path,
			const struct pc_import_opts *opts, struct pc_err *err)
{
	struct pc_lines in;
	if (pc_lines_open(&in, path, db->diag, err))
		return -1;
	if (opts && opts->max_line)
		in.max_line = opts->max_line;
	struct dhdr h = { 0 };
	struct {
		char name[128];
		uint64_t period;
	} ev[64];
	size_t nev = 0;
	struct target t[64];
	int started = 0, r, rc = 0;
	char *line;
	size_t len;
	while ((r = pc_lines_next(&in, &line, &len, err)) > 0) {
		char *v = line;
		while (*v && *v != ' ' && *v != '\t')
			v++;
		size_t kl = (size_t)(v - line);
		while (*v == ' ' || *v == '\t')
			v++;
		if (!kl)
			continue;
		if (line[0] == '0' && (line[1] == 'x' || line[1] == 'X')) {
			if (!nev) {
				rc = pc_err_at_line(err, path, in.lineno,
						    "a sample row before any "
						    "'event' line");
				break;
			}
			if (!started) {
				for (size_t e = 0; e < nev; e++) {
					struct dhdr he = h;
					memcpy(he.event, ev[e].name,
					       sizeof ev[e].name);
					he.period = ev[e].period;
					target_init(&t[e], db, &he);
				}
				started = 1;
			}
			char *end;
			errno = 0;
			unsigned long long pc = strtoull(line + 2, &end, 16);
			if (errno || end == line + 2 ||
			    (*end != ' ' && *end != '\t' && *end)) {
				rc = pc_err_at_line(err, path, in.lineno,
						    "bad address '%.*s'",
						    (int)kl, line);
				break;
			}
			if (h.tsize && (pc < h.tstart || pc - h.tstart >= h.tsize)) {
				rc = pc_err_at_line(err, path, in.lineno,
						    "address 0x%llx is outside "
						    "the text (text_start 0x%llx, "
						    "text_size 0x%llx)", pc,
						    (unsigned long long)h.tstart,
						    (unsigned long long)h.tsize);
				break;
			}
			char *s = end;
			for (size_t e = 0; e < nev && !rc; e++) {
				while (*s == ' ' || *s == '\t')
					s++;
				if (!*s) {
					rc = pc_err_at_line(
						err, path, in.lineno,
						"%zu count%s for %zu events", e,
						e == 1 ? "" : "s", nev);
					break;
				}
				errno = 0;
				unsigned long long c = strtoull(s, &end, 10);
				if (errno || end == s || *s == '-' ||
				    (*end != ' ' && *end != '\t' && *end)) {
					rc = pc_err_at_line(err, path, in.lineno,
							    "bad count");
					break;
				}
				if (c > DCPI_MAX) {
					rc = pc_err_at_line(err, path, in.lineno,
							    "count %llu is above "
							    "2^32-1 (DCPI's counts "
							    "are 32-bit)", c);
					break;
				}
				target_add(&t[e], pc, c);
				s = end;
			}
			while (!rc && (*s == ' ' || *s == '\t'))
				s++;
			if (!rc && *s)
				rc = pc_err_at_line(err, path, in.lineno,
						    "more counts than the %zu "
						    "events", nev);
			if (rc)
				break;
			continue;
		}
		if (started) {
			rc = pc_err_at_line(err, path, in.lineno, "header line "
					    "after the sample rows");
			break;
		}
		line[kl] = 0;
		uint64_t x;
		char *field = NULL;
		size_t cap = 0;
		if (!strcmp(line, "name"))
			field = h.name, cap = sizeof h.name;
		else if (!strcmp(line, "image"))
			field = h.image, cap = sizeof h.image;
		else if (!strcmp(line, "label"))
			field = h.label, cap = sizeof h.label;
		else if (!strcmp(line, "path") && !*h.path)
			field = h.path, cap = sizeof h.path;
		else if (!strcmp(line, "epoch"))
			field = h.epoch, cap = sizeof h.epoch;
		else if (!strcmp(line, "platform"))
			field = h.platform, cap = sizeof h.platform;
		if (field) {
			if (copyv(field, cap, v)) {
				rc = pc_err_at_line(err, path, in.lineno,
						    "%s longer than %zu bytes",
						    line, cap - 1);
				break;
			}
		} else if (!strcmp(line, "text_start") ||
			   !strcmp(line, "text_size")) {
			if (strncmp(v, "0x", 2) || parse_u64(v + 2, 16, &x)) {
				rc = pc_err_at_line(err, path, in.lineno,
						    "bad %s '%s'", line, v);
				break;
			}
			if (!strcmp(line, "text_start"))
				h.tstart = x;
			else
				h.tsize = x;
		} else if (!strcmp(line, "event")) {
			/* event W name:period:fraction */
			char *sp = v;
			while (*sp && *sp != ' ' && *sp != '\t')
				sp++;
			while (*sp == ' ' || *sp == '\t')
				sp++;
			char *c1 = strchr(sp, ':');
			char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
			if (!c1 || !c2 || c1 == sp || nev == 64) {
				rc = pc_err_at_line(err, path, in.lineno,
						    "bad event '%s' (want TOTAL "
						    "NAME:PERIOD:FRACTION)", v);
				break;
			}
			*c2 = 0;
			if (parse_u64(c1 + 1, 10, &ev[nev].period) ||
			    !ev[nev].period) {
				rc = pc_err_at_line(err, path, in.lineno,
						    "bad period in event '%s'", v);
				break;
			}
			if (ev[nev].period > DCPI_MAX) {
				rc = pc_err_at_line(err, path, in.lineno,
						    "period %s is above 2^32-1: "
						    "samples x period would not "
						    "fit 64 bits", c1 + 1);
				break;
			}
			*c1 = 0;
			if (copyv(ev[nev].name, sizeof ev[nev].name, sp)) {
				rc = pc_err_at_line(err, path, in.lineno,
						    "event name too long");
				break;
			}
			nev++;
		}
		/* other lines: kept out, as dcpicat's own extensions */
	}
	if (r < 0)
		rc = -1;
	if (!rc && !started && !nev)
		rc = pc_err_set(err, "%s: no 'event' line", path);
	pc_lines_close(&in);
	return rc;
}

/* ---- database directories ---- */

static int all_digits(const char *s, size_t n)
{
	if (strlen(s) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int is_epoch(const char *s)
{
	return all_digits(s, 10) || all_digits(s, 12) || all_digits(s, 14);
}

static int read_db(struct pc_db *db, const char *dir, struct pc_err *err)
{
	/* the files first: their sizes bound the addresses (a count is 4
	 * bytes), and the contexts and values are reserved once */
	char **paths = NULL;
	size_t n = 0, cap = 0, bytes = 0;
	size_t ne;
	char **epochs = pc_list_dir(dir, &ne);
	for (size_t i = 0; i < ne; i++) {
		if (!is_epoch(epochs[i]))
			continue;
		char ep[4200];
		snprintf(ep, sizeof ep, "%s/%s", dir, epochs[i]);
		size_t np;
		char **plats = pc_list_dir(ep, &np);
		for (size_t j = 0; j < np; j++) {
			char pl[4400];
			snprintf(pl, sizeof pl, "%s/%s", ep, plats[j]);
			size_t nf;
			char **files = pc_list_dir(pl, &nf);
			for (size_t k = 0; k < nf; k++) {
				char f[4700];
				snprintf(f, sizeof f, "%s/%s", pl, files[k]);
				struct stat st;
				if (stat(f, &st) != 0 || !S_ISREG(st.st_mode))
					continue;
				PC_GROW(paths, n, cap);
				paths[n++] = pc_xstrdup(f);
				bytes += (size_t)st.st_size;
			}
			pc_free_list(files, nf);
		}
		pc_free_list(plats, np);
	}
	pc_free_list(epochs, ne);
	pc_ctx_reserve(db, bytes / 4);
	pc_values_reserve(db, bytes / 2);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		rc = read_v0(db, paths[i], err);
	pc_free_list(paths, n);
	if (!rc && !n)
		rc = pc_err_set(err, "%s: no profile files under "
				"EPOCH/PLATFORM/", dir);
	return rc;
}

/* ---- the importer ---- */

static int dcpi_probe(const struct pc_probe *pr)
{
	if (pr->is_dir) {
		for (size_t i = 0; i < pr->nnames; i++)
			if (is_epoch(pr->names[i]))
				return 60;
		return 0;
	}
	const char *b = (const char *)pr->buf;
	if (!strncmp(b, "version pdb-", 12) || strstr(b, "\nversion pdb-"))
		return 95;
	if (!strncmp(b, "name ", 5) && strstr(b, "\nimage ") &&
	    strstr(b, "\nevent "))
		return 90;
	return 0;
}

static int dcpi_read(struct pc_db *db, const char *path,
		     const struct pc_import_opts *opts, struct pc_err *err)
{
	struct stat st;
	int rc;
	if (path != pc_stdin_path && stat(path, &st) == 0 &&
	    S_ISDIR(st.st_mode)) {
		rc = read_db(db, path, err);
	} else {
		/* the first line tells the binary form from dcpicat text */
		struct pc_probe pr;
		if (pc_probe_open(&pr, path, err)) {
			pc_probe_close(&pr);
			return -1;
		}
		int binary = dcpi_probe(&pr) == 95;
		pc_probe_close(&pr);
		rc = binary ? read_v0(db, path, err) :
			      read_dcpicat(db, path, opts, err);
	}
	if (rc)
		pc_err_context(err, "reading a DCPI profile");
	return rc;
}

const struct pc_importer pc_import_dcpi = {
	.name = "dcpi",
	.description = "DCPI profiles: v0 binary profile files (pdb-0.*), "
		       "dcpicat text, profile database directories",
	.probe = dcpi_probe,
	.read = dcpi_read,
	.no_traces = 1,
};
