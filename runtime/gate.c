/* gate.c: the start gate of commands, for the event stream. */
#include "gate.h"

#include <string.h>

void ltap_gate_init(struct ltap_gate *g)
{
	memset(g, 0, sizeof *g);
}

static void gate_unhold(struct ltap_gate *g, int i)
{
	g->wait[i] = g->wait[--g->nwait];
	g->active = g->nwait > 0;
}

void ltap_gate_hold(struct ltap_gate *g, int pid)
{
	for (int i = 0; i < g->nwait; i++)
		if (g->wait[i] == pid)
			return;
	if (g->nwait == LTAP_GATE_WAIT)
		gate_unhold(g, 0); /* the oldest: a command whose exec failed long ago */
	g->wait[g->nwait++] = pid;
	g->active = 1;
}

int ltap_gate_drop(struct ltap_gate *g, int tid, int kind)
{
	for (int i = 0; i < g->nwait; i++) {
		if (g->wait[i] != tid)
			continue;
		if (kind != LTAP_GATE_EVENT)
			gate_unhold(g, i); /* its exec, or its end without one */
		return kind != LTAP_GATE_EXEC;
	}
	return 0;
}

void ltap_gate_newtask(struct ltap_gate *g, int tid)
{
	for (int i = 0; i < g->nwait; i++)
		if (g->wait[i] == tid)
			gate_unhold(g, i); /* the held one is gone: its number was reused */
}
