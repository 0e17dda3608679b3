// SPDX-License-Identifier: GPL-2.0
/*
 * lab-agent: runs in every guest, forked by /init (lab-init, init.c beside
 * it, which it is linked into: no exec, no second static binary to page in
 * from the disk).  It finds the virtio-serial port the launcher talks on,
 * says READY, then runs each command it is sent with /bin/sh -c,
 * streaming the output back and ending with the exit status (../proto.h,
 * the one header the guest shares with the launcher).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "../proto.h"

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("lab-agent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write to the control port: %s", strerror(errno));
		p += n;
		len -= n;
	}
}

static void send_header(int fd, const char *fmt, ...)
{
	char line[PROTO_MAX_LINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	write_all(fd, line, n);
}

/* /dev/vportNpM whose sysfs name is PROTO_PORT_NAME. */
static int open_port(void)
{
	char path[512], name[64];
	struct dirent *de;
	DIR *d;
	int fd, tries;
	FILE *f;

	/* The port's udev-less device node can lag the agent's start. */
	for (tries = 0; tries < 100; tries++) {
		d = opendir("/sys/class/virtio-ports");
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name",
				 de->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(name, sizeof(name), f) &&
			    !strncmp(name, PROTO_PORT_NAME, strlen(PROTO_PORT_NAME))) {
				fclose(f);
				snprintf(path, sizeof(path), "/dev/%s", de->d_name);
				closedir(d);
				fd = open(path, O_RDWR | O_CLOEXEC);
				if (fd < 0)
					die("%s: %s", path, strerror(errno));
				return fd;
			}
			fclose(f);
		}
		if (d)
			closedir(d);
		usleep(20000);
	}
	die("no virtio-serial port named %s", PROTO_PORT_NAME);
	return -1;
}

/* Reads one '\n'-terminated header; byte by byte, the payload follows. */
static int read_header(int fd, char *line, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < size) {
		r = read(fd, line + n, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (line[n] == '\n') {
			line[n] = '\0';
			return 0;
		}
		n++;
	}
	return -1;
}

static void read_exact(int fd, char *buf, size_t len)
{
	ssize_t r;

	while (len) {
		r = read(fd, buf, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("control port closed mid-message");
		buf += r;
		len -= r;
	}
}

/* Runs command SEQ, CMD, sending its output and its END on PORT. */
static void run_command(int port, unsigned long seq, const char *cmd)
{
	char buf[4096], line[PROTO_MAX_LINE];
	unsigned long kill_seq;
	int out[2], status, done = 0, eof = 0;
	struct pollfd pfd[2];
	pid_t pid;
	ssize_t n;

	if (pipe2(out, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		/* Own process group: KILL takes the whole command with it. */
		setsid();
		/*
		 * The agent ignores SIGPIPE for itself; a command gets the
		 * default, or `yes | head -n 1` would never end.
		 */
		signal(SIGPIPE, SIG_DFL);
		dup2(out[1], 1);
		dup2(out[1], 2);
		close(0);
		open("/dev/null", O_RDONLY);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(out[1]);

	/*
	 * The shell's exit ends the command even if something it started in
	 * the background still holds the pipe open (a daemon in a setup line).
	 */
	while (!done) {
		pfd[0] = (struct pollfd){ .fd = out[0], .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = port, .events = POLLIN };
		if (poll(pfd, 2, eof ? 50 : 100) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		if (!eof && (pfd[0].revents & (POLLIN | POLLHUP))) {
			n = read(out[0], buf, sizeof(buf));
			if (n > 0) {
				send_header(port, "OUT %lu %zd\n", seq, n);
				write_all(port, buf, n);
			} else if (n == 0) {
				eof = 1;
			}
		}
		if (pfd[1].revents & POLLIN) {
			if (read_header(port, line, sizeof(line)))
				die("control port closed");
			if (sscanf(line, "KILL %lu", &kill_seq) == 1 && kill_seq == seq)
				kill(-pid, SIGKILL);
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			/* Drain what the shell wrote before it left. */
			fcntl(out[0], F_SETFL, O_NONBLOCK);
			while ((n = read(out[0], buf, sizeof(buf))) > 0) {
				send_header(port, "OUT %lu %zd\n", seq, n);
				write_all(port, buf, n);
			}
			done = 1;
		}
	}
	close(out[0]);
	send_header(port, "END %lu %d\n", seq, WIFEXITED(status) ? WEXITSTATUS(status) :
		    128 + WTERMSIG(status));
}

int agent_main(void)
{
	char line[PROTO_MAX_LINE], *cmd;
	unsigned long seq, len;
	int port;

	signal(SIGPIPE, SIG_IGN);
	port = open_port();
	send_header(port, "READY\n");
	for (;;) {
		if (read_header(port, line, sizeof(line)))
			return 0;	/* the host went away: nothing left to do */
		if (sscanf(line, "RUN %lu %lu", &seq, &len) != 2)
			continue;	/* a KILL that came too late */
		if (len > PROTO_MAX_CMD)
			die("command of %lu bytes is too long", len);
		cmd = malloc(len + 1);
		if (!cmd)
			die("out of memory");
		read_exact(port, cmd, len);
		cmd[len] = '\0';
		run_command(port, seq, cmd);
		free(cmd);
	}
}
