/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control protocol between the launcher (host) and the agent (guest),
 * spoken over a virtio-serial port named PROTO_PORT_NAME.  Every message is
 * one header line, some followed by exactly LEN bytes of payload:
 *
 *   guest -> host   READY\n                  the agent is up
 *                   OUT LEN\n<bytes>         output of the running command
 *                   END STATUS\n             it ended: exit code, 128+signal
 *   host -> guest   RUN LEN\n<bytes>         run the bytes with /bin/sh -c
 *                   KILL\n                   kill the running command
 *
 * One command runs at a time; the host enforces timeouts with KILL.  The
 * host trusts nothing it reads: a header longer than PROTO_MAX_LINE, an OUT
 * longer than PROTO_MAX_OUT, a STATUS outside 0..255 or an unknown header
 * fails the node as garbage.
 */
#ifndef LAB_PROTO_H
#define LAB_PROTO_H

#define PROTO_PORT_NAME	"lab.ctl"
#define PROTO_MAX_LINE	64
#define PROTO_MAX_CMD	(64 * 1024)
#define PROTO_MAX_OUT	(64 * 1024)	/* the agent sends 4 KiB at most */

#endif
