/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest agent (agent.c), linked into lab-init: init forks and calls
 * it for lab.run=agent.  Returns when the launcher goes away.
 */
#ifndef LAB_AGENT_H
#define LAB_AGENT_H

int agent_main(void);

#endif
