/* replay_wire.h: what the trace.dat reader process (replay_reader.c) sends
 * ltap over a pipe (src_replay.c). libtracecmd runs only in that process:
 * ltap itself reads nothing of the file but these frames, and checks each
 * one before it trusts it.
 *
 * A frame is a header and LEN bytes of payload, zero-padded to a multiple
 * of 8 so that the next header and every record's bytes are 8-aligned:
 *   the texts libtraceevent parsed while libtracecmd opened the file, in
 *   that order (header page, formats, kallsyms, printk formats, cmdlines),
 *   then SETUP, then RECORD and MISSED frames in time order (the reader
 *   merges the file's per-CPU streams), then END. ERROR instead of
 *   anything: the reader could not read the file and says why. */
#ifndef LTAP_REPLAY_WIRE_H
#define LTAP_REPLAY_WIRE_H

#include <stdint.h>

enum ltap_wire_type {
	WIRE_HEADER_PAGE = 1, /* u32 long_size, u32 0, the header_page text */
	WIRE_FORMAT,          /* the system, NUL, the format text */
	WIRE_KALLSYMS,        /* text */
	WIRE_PRINTK,          /* text */
	WIRE_CMDLINES,        /* text */
	WIRE_SETUP,           /* struct ltap_wire_setup */
	WIRE_RECORD,          /* struct ltap_wire_rec, the record's bytes, one 0 byte */
	WIRE_MISSED,          /* struct ltap_wire_missed: events lost before the next record */
	WIRE_END,             /* struct ltap_wire_end */
	WIRE_ERROR,           /* text: why the file cannot be read */
};

struct ltap_wire_frame {
	uint32_t type;
	uint32_t len; /* payload bytes, padding not included */
};

struct ltap_wire_setup {
	uint8_t file_bigendian;
	uint8_t long_size;
	uint16_t zero;
	uint32_t page_size;
	uint32_t cpus;    /* of the top-level buffer, for the formats' cpu fields */
	uint32_t streams; /* per-CPU streams of every buffer, merged */
	uint64_t start;   /* "ltap-record start=NS", or the first event's time */
	int32_t command;  /* "... command=PID" after it: the run's -c command, or 0 */
	uint32_t zero2;
	uint64_t last;    /* the last event's time, when asked (LTAP_REPLAY_LAST), else 0 */
};

struct ltap_wire_rec {
	uint64_t ts;
	uint32_t cpu;
	uint32_t size; /* bytes of the record; one 0 byte follows them */
};

struct ltap_wire_missed {
	uint32_t cpu;
	uint32_t zero;
	uint64_t count;
};

struct ltap_wire_end {
	uint64_t end;     /* "ltap-record end=NS", or 0 */
	uint64_t records; /* RECORD frames sent */
};

/* A frame's size on the wire, header and padding included. */
static inline uint64_t ltap_wire_size(uint32_t len)
{
	return sizeof(struct ltap_wire_frame) + (((uint64_t)len + 7) & ~(uint64_t)7);
}

/* Bounds that hold for any real trace.dat: a record fits a sub-buffer
 * (ftrace's are at most 1 MB); the texts are formats and symbol tables. */
#define LTAP_WIRE_MAX_RECORD (1u << 20)
#define LTAP_WIRE_MAX_TEXT (256u << 20)
#define LTAP_WIRE_MAX_SETUP (512ull << 20) /* all setup frames together */

#endif
