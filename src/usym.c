// SPDX-License-Identifier: GPL-2.0
/* User frames to function+offset, from the ELF symbol tables of their files. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "usym.h"

struct usym {
	__u64 addr, size;
	char *name;
};

/* A PT_LOAD segment: file offsets [off, off + filesz) are at vaddr. */
struct useg {
	__u64 off, vaddr, filesz;
};

struct ufile {
	struct tt_file_key key;
	char *path;		/* NULL: the files map does not have it */
	const char *name;
	char build_id[41];
	const char *why;	/* why no function is found in it */
	struct usym *syms;	/* by address */
	size_t nr_syms;
	struct useg *segs;
	size_t nr_segs;
};

/* Direct-mapped: a storm of faults has few distinct places. */
#define LOC_CACHE	256

struct loc_entry {
	bool valid;
	struct tt_file_key key;
	__u64 off;
	struct ufile *file;
	const struct usym *sym;
	__u64 va;		/* off in the file's own layout */
};

/* A file mapping of /proc/PID/maps. */
struct umap {
	__u64 start, end, off;
	struct tt_file_key key;
	char *path;
};

struct tt_usyms {
	tt_path_fn path_of;
	void *ctx;
	struct ufile **files;
	size_t nr_files, cap_files;
	struct loc_entry cache[LOC_CACHE];
	bool elf_ready;
	__u32 maps_pid;		/* whose maps are in maps */
	struct umap *maps;
	size_t nr_maps, cap_maps;
};

struct tt_usyms *tt_usyms_new(tt_path_fn path_of, void *ctx)
{
	struct tt_usyms *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->path_of = path_of;
	u->ctx = ctx;
	return u;
}

bool tt_path_join(const struct tt_path *p, char *buf, size_t len)
{
	size_t at = 0, n;
	int i;

	if (!len)
		return false;
	buf[0] = 0;
	for (i = (int)p->depth - 1; i >= 0 && i < TT_PATH_DEPTH; i--) {
		n = strnlen(p->name[i], TT_NAME_LEN);
		if (at + 1 + n + 1 > len)
			return false;
		buf[at++] = '/';
		memcpy(buf + at, p->name[i], n);
		at += n;
		buf[at] = 0;
	}
	if (!at && len > 1) {
		buf[0] = '/';
		buf[1] = 0;
	}
	return p->complete;
}

static int by_addr(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The GNU build-id note of e, as hex into f->build_id. */
static void read_build_id(Elf *e, struct ufile *f)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	size_t off, name_off, desc_off, i;
	Elf_Data *d;
	const unsigned char *desc;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		off = 0;
		while (d && (off = gelf_getnote(d, off, &nh, &name_off,
						&desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + name_off, "GNU", 4) ||
			    nh.n_descsz > 20)
				continue;
			desc = (const unsigned char *)d->d_buf + desc_off;
			for (i = 0; i < nh.n_descsz; i++)
				sprintf(f->build_id + 2 * i, "%02x", desc[i]);
			return;
		}
	}
}

/* The functions of one symbol table section; false on no memory. */
static bool read_symtab(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
			struct ufile *f)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct usym *s;
	const char *name;
	GElf_Sym sym;

	if (!d)
		return true;
	s = realloc(f->syms, (f->nr_syms + n) * sizeof(*s) + 1);
	if (!s)
		return false;
	f->syms = s;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(d, (int)i, &sym) ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		s = &f->syms[f->nr_syms];
		s->name = strdup(name);
		if (!s->name)
			return false;
		s->addr = sym.st_value;
		s->size = sym.st_size;
		f->nr_syms++;
	}
	return true;
}

/* e's symbol table section of type (SHT_SYMTAB, SHT_DYNSYM), or NULL. */
static Elf_Scn *find_symtab(Elf *e, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type &&
		    sh->sh_size)
			return scn;
	return NULL;
}

/*
 * The separate debug file of a stripped file with build id f->build_id,
 * where Debian's -dbg packages put it: its .symtab has the functions
 * .dynsym lacks, at the same addresses. False if there is none.
 */
static bool read_debug_file(struct ufile *f)
{
	char path[96];
	GElf_Shdr sh;
	Elf_Scn *scn;
	bool done = false;
	Elf *e;
	int fd;

	if (strlen(f->build_id) < 4)
		return false;
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug",
		 f->build_id, f->build_id + 2);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ, NULL);
	scn = e ? find_symtab(e, SHT_SYMTAB, &sh) : NULL;
	if (scn)
		done = read_symtab(e, scn, &sh, f) && f->nr_syms;
	if (e)
		elf_end(e);
	close(fd);
	return done;
}

/*
 * The load segments and function symbols of the ELF file open at fd:
 * .symtab's when the file has one, else its debug file's, else .dynsym's
 * (a stripped binary: exported functions only).
 */
static void read_elf(int fd, struct ufile *f)
{
	GElf_Shdr sh;
	GElf_Phdr ph;
	Elf_Scn *scn;
	size_t i, n;
	Elf *e;

	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		f->why = "not an ELF file";
		goto out;
	}
	if (elf_getphdrnum(e, &n))
		n = 0;
	f->segs = calloc(n + 1, sizeof(*f->segs));
	if (!f->segs) {
		f->why = "out of memory";
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->segs[f->nr_segs++] = (struct useg){ ph.p_offset, ph.p_vaddr,
						       ph.p_filesz };
	}
	read_build_id(e, f);
	scn = find_symtab(e, SHT_SYMTAB, &sh);
	if (!scn && read_debug_file(f))
		goto sort;
	if (!scn)
		scn = find_symtab(e, SHT_DYNSYM, &sh);
	if (scn && !read_symtab(e, scn, &sh, f)) {
		f->why = "out of memory";
		goto out;
	}
sort:
	if (f->nr_syms)
		qsort(f->syms, f->nr_syms, sizeof(*f->syms), by_addr);
	else
		f->why = "no symbols";
out:
	if (e)
		elf_end(e);
}

/*
 * The file behind key: its path from the files map, checked to be the
 * same file still (device and inode: not replaced since, and this mount
 * namespace's), then its ELF tables. A file is read once, found or not.
 */
static struct ufile *file_of(struct tt_usyms *u, const struct tt_file_key *key,
			     const char *known)
{
	char path[TT_PATH_DEPTH * TT_NAME_LEN + 2];
	struct tt_path *p;
	struct ufile *f, **grown;
	struct stat st;
	size_t i;
	int fd;

	for (i = 0; i < u->nr_files; i++)
		if (u->files[i]->key.ino == key->ino &&
		    u->files[i]->key.dev == key->dev)
			return u->files[i];
	if (u->nr_files == u->cap_files) {
		grown = realloc(u->files, (u->cap_files * 2 + 8) *
				sizeof(*grown));
		if (!grown)
			return NULL;
		u->files = grown;
		u->cap_files = u->cap_files * 2 + 8;
	}
	f = calloc(1, sizeof(*f));
	p = malloc(sizeof(*p));
	if (!f || !p) {
		free(f);
		free(p);
		return NULL;
	}
	f->key = *key;
	u->files[u->nr_files++] = f;
	if (known) {
		snprintf(path, sizeof(path), "%s", known);
	} else if (!u->path_of(u->ctx, key, p)) {
		f->why = "path not recorded";
		free(p);
		return f;
	} else if (!tt_path_join(p, path, sizeof(path))) {
		f->why = "path too long";
	}
	free(p);
	f->path = strdup(path);
	if (!f->path) {
		f->why = "out of memory";
		return f;
	}
	f->name = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
	if (f->why)
		return f;
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_ino != key->ino ||
	    major(st.st_dev) != key->dev >> 20 ||
	    minor(st.st_dev) != (key->dev & 0xfffff)) {
		f->why = fd < 0 ? "cannot open" : "not this file";
		if (fd >= 0)
			close(fd);
		return f;
	}
	read_elf(fd, f);
	close(fd);
	return f;
}

/*
 * The function of f that covers file offset off, or NULL; *va: off's
 * address in the file's own layout.
 */
static const struct usym *sym_at(const struct ufile *f, __u64 off, __u64 *va)
{
	const struct useg *seg = NULL;
	size_t lo = 0, hi = f->nr_syms, i, mid;

	for (i = 0; i < f->nr_segs; i++)
		if (off >= f->segs[i].off &&
		    off - f->segs[i].off < f->segs[i].filesz)
			seg = &f->segs[i];
	if (!seg || !f->nr_syms)
		return NULL;
	*va = off - seg->off + seg->vaddr;
	while (lo < hi) {		/* past the last symbol at or below va */
		mid = lo + (hi - lo) / 2;
		if (f->syms[mid].addr <= *va)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Aliases share an address: any of them that covers va. */
	for (i = lo; i-- > 0 && f->syms[i].addr == f->syms[lo - 1].addr;)
		if (*va - f->syms[i].addr < f->syms[i].size)
			return &f->syms[i];
	return NULL;
}

static void drop_maps(struct tt_usyms *u)
{
	size_t i;

	for (i = 0; i < u->nr_maps; i++)
		free(u->maps[i].path);
	u->nr_maps = 0;
}

/*
 * A frame BPF could not place (bpf_find_vma() takes the mm's lock once in
 * an interrupts-off section, as at a page fault: the other frames of a
 * fault's stack, or a second tracer's lookup), placed from
 * /proc/PID/maps while the process lives: the mapping's file and the
 * offset, and the path to read it by. Read again for another process, or
 * when an address is in none of the mappings read.
 */
static bool frame_from_maps(struct tt_usyms *u, __u32 pid, struct tt_frame *f,
			    const char **path)
{
	unsigned long start, end, pgoff, ino;
	unsigned int maj, min;
	char name[32], line[600], file[512];
	struct umap *m, *grown;
	size_t i;
	int pass;
	FILE *maps;

	for (pass = 0; pass < 2; pass++) {
		if (pass || u->maps_pid != pid) {
			u->maps_pid = pid;
			drop_maps(u);
			snprintf(name, sizeof(name), "/proc/%u/maps", pid);
			maps = fopen(name, "re");
			while (maps && fgets(line, sizeof(line), maps)) {
				if (sscanf(line, "%lx-%lx %*s %lx %x:%x %lu %511s",
					   &start, &end, &pgoff, &maj, &min,
					   &ino, file) != 7 || !ino ||
				    file[0] != '/')
					continue;
				if (u->nr_maps == u->cap_maps) {
					grown = realloc(u->maps,
							(u->cap_maps * 2 + 16) *
							sizeof(*grown));
					if (!grown)
						break;
					u->maps = grown;
					u->cap_maps = u->cap_maps * 2 + 16;
				}
				m = &u->maps[u->nr_maps];
				m->path = strdup(file);
				if (!m->path)
					break;
				m->start = start;
				m->end = end;
				m->off = pgoff;
				m->key = (struct tt_file_key){
					.ino = ino, .dev = maj << 20 | min };
				u->nr_maps++;
			}
			if (maps)
				fclose(maps);
		}
		for (i = 0; i < u->nr_maps; i++) {
			m = &u->maps[i];
			if (f->ip >= m->start && f->ip < m->end) {
				f->file = m->key;
				f->file_off = f->ip - m->start + m->off;
				*path = m->path;
				return true;
			}
		}
		if (!u->nr_maps)
			return false;	/* gone: no second read */
	}
	return false;
}

bool tt_usyms_locate(struct tt_usyms *u, __u32 pid, const struct tt_frame *in,
		     struct tt_uloc *loc)
{
	struct tt_frame placed = *in, *fr = &placed;
	const char *known = NULL;

	struct loc_entry *c;
	struct ufile *f;
	const struct usym *s;
	__u64 va = 0;

	memset(loc, 0, sizeof(*loc));
	if (!fr->file.ino &&
	    (!pid || !fr->ip || (__s64)fr->ip < 0 ||
	     !frame_from_maps(u, pid, fr, &known))) {
		/* Said, where BPF knows why it could not place the frame. */
		if (fr->file.pad != EBUSY)
			return false;
		loc->why = "not placed: the VMA lookup was busy";
		return true;
	}
	fr->file.pad = 0;
	c = &u->cache[(fr->file.ino * 31 + fr->file_off) % LOC_CACHE];
	if (!u->elf_ready) {
		elf_version(EV_CURRENT);
		u->elf_ready = true;
	}
	if (c->valid && c->key.ino == fr->file.ino &&
	    c->key.dev == fr->file.dev && c->off == fr->file_off) {
		f = c->file;
		s = c->sym;
	} else {
		f = file_of(u, &fr->file, known);
		if (!f)
			return false;
		s = f->why ? NULL : sym_at(f, fr->file_off, &va);
		*c = (struct loc_entry){ true, fr->file, fr->file_off, f, s,
					 va };
	}
	va = c->va;
	loc->file = f->path;
	loc->file_off = fr->file_off;
	loc->name = f->name;
	loc->build_id = f->build_id;
	loc->why = f->why ? f->why : s ? "" : "no symbol here";
	if (s) {
		loc->sym = s->name;
		loc->off = va - s->addr;
	} else {
		loc->off = fr->file_off;
	}
	return true;
}

bool tt_usyms_locate_ctx(void *u, __u32 pid, const struct tt_frame *f,
			 struct tt_uloc *loc)
{
	return tt_usyms_locate(u, pid, f, loc);
}

void tt_uloc_text(const struct tt_frame *f, const struct tt_uloc *loc,
		  char *buf, size_t len)
{
	const char *name = loc && loc->name ? loc->name : "?";

	if (!loc)
		snprintf(buf, len, "0x%llx", (unsigned long long)f->ip);
	else if (!loc->file)	/* not placed, and why */
		snprintf(buf, len, "0x%llx (%s)", (unsigned long long)f->ip,
			 loc->why);
	else if (loc->sym)
		snprintf(buf, len, "%.*s+0x%llx (%s)", TT_USYM_TEXT_SYM,
			 loc->sym, (unsigned long long)loc->off, name);
	else if (!f->ip)	/* a place in a file, not one process's ip */
		snprintf(buf, len, "%s+0x%llx", name,
			 (unsigned long long)loc->off);
	else
		snprintf(buf, len, "0x%llx (%s+0x%llx)",
			 (unsigned long long)f->ip, name,
			 (unsigned long long)loc->off);
}

void tt_usyms_free(struct tt_usyms *u)
{
	size_t i, j;

	if (!u)
		return;
	for (i = 0; i < u->nr_files; i++) {
		for (j = 0; j < u->files[i]->nr_syms; j++)
			free(u->files[i]->syms[j].name);
		free(u->files[i]->syms);
		free(u->files[i]->segs);
		free(u->files[i]->path);
		free(u->files[i]);
	}
	free(u->files);
	drop_maps(u);
	free(u->maps);
	free(u);
}
