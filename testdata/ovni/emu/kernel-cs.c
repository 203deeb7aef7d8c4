/* A nOS-V task whose thread the kernel takes off its CPU twice. */
#include <stdint.h>
#include <stdlib.h>
#include "compat.h"
#include "instr.h"
#include "instr_nosv.h"
#include "../kernel/instr_kernel.h"

int
main(void)
{
	instr_start(0, 1);
	instr_nosv_init();
	instr_kernel_init();
	instr_nosv_type_create(7);
	instr_nosv_task_create(1, 7);
	sleep_us(200);
	instr_kernel_cs_out();
	sleep_us(300);
	instr_kernel_cs_in();
	instr_nosv_task_execute(1, 0);
	sleep_us(400);
	instr_nosv_submit_enter();
	instr_kernel_cs_out();
	sleep_us(500);
	instr_kernel_cs_in();
	instr_nosv_submit_exit();
	sleep_us(100);
	instr_nosv_task_end(1, 0);
	instr_end();
	return 0;
}
