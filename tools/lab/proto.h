/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control protocol between the launcher (host) and the agent (guest),
 * spoken over a virtio-serial port named PROTO_PORT_NAME.  Every message is
 * one header line, some followed by exactly LEN bytes of payload:
 *
 *   guest -> host   READY\n                  the agent is up
 *                   OUT SEQ LEN\n<bytes>     output of command SEQ
 *                   END SEQ STATUS\n         it ended: exit code, 128+signal
 *   host -> guest   RUN SEQ LEN\n<bytes>     run the bytes with /bin/sh -c
 *                   KILL SEQ\n               kill command SEQ if it runs
 *
 * One command runs at a time; the host numbers them from 1 and enforces
 * timeouts with KILL.  SEQ ties every OUT and END to its command, so a
 * stray END cannot end the next command with another's status, and a KILL
 * that crosses its command's END kills nothing else.  The host trusts
 * nothing it reads: a header longer than PROTO_MAX_LINE, an OUT longer than
 * PROTO_MAX_OUT, a STATUS outside 0..255, a SEQ not the running command's
 * or an unknown header fails the node as garbage.
 */
#ifndef LAB_PROTO_H
#define LAB_PROTO_H

#define PROTO_PORT_NAME	"lab.ctl"
#define PROTO_MAX_LINE	64
#define PROTO_MAX_CMD	(64 * 1024)
#define PROTO_MAX_OUT	(64 * 1024)	/* the agent sends 4 KiB at most */

#endif
