/* ovni runtime traces: the event table shared by importers/ovni*.c. */
#ifndef PC_OVNI_H
#define PC_OVNI_H
#include <stddef.h>

/* What an event does to the thread's stack of frames. */
enum ov_kind {
	OV_POINT,       /* known, changes no frame */
	OV_ENTER,       /* pushes the region named in arg */
	OV_EXIT,        /* pops the region entered by the MCV in arg */
	OV_TYPE_DEF,    /* jumbo (u32 typeid, str label): a task type */
	OV_TASK_CREATE, /* (u32 taskid, u32 typeid) */
	OV_TASK_EXEC,   /* (u32 taskid, ...): pushes the task body */
	OV_TASK_END,    /* pops it */
	OV_TASK_PAUSE,  /* pushes "[task paused]" over the task body */
	OV_TASK_RESUME, /* pops it */
	OV_TYPED_ENTER, /* (u32 typeid): a region named by a type label */
	OV_TYPED_EXIT,
	OV_MARK_PUSH,   /* (i64 value, i32 type) */
	OV_MARK_POP,
	OV_MARK_SET,
	OV_TH_EXEC,     /* thread states */
	OV_TH_END,
	OV_TH_PAUSE,
	OV_TH_RESUME,
	OV_TH_COOL,
	OV_TH_WARM,
	OV_OFFCPU,
	OV_ONCPU,
	OV_UNORD_BEGIN, /* clocks may go back until OV_UNORD_END */
	OV_UNORD_END,
};

struct ov_event {
	const char *model;
	const char *mcv;
	int psize; /* payload bytes; -1: jumbo */
	int kind;  /* enum ov_kind */
	const char *arg;
};
struct ov_model {
	const char *name;
	char letter; /* in ovni 1.14 */
	const char *version;
};
extern const struct ov_event ov_events[];
extern const struct ov_model ov_models[];

#endif
