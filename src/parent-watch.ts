// Noticing that the process which started krill is gone. Linux's prctl(PR_SET_PDEATHSIG) is out of reach
// from Node, and stdin reaches EOF only when the parent gave a pipe (a shell's background job gets
// /dev/null), so krill checks its parent process id on a cheap timer: when the parent exits, the kernel
// hands krill to init or to a subreaper, and the id changes. The timer is unref'd: it never keeps the
// process alive, and a start pays one getppid().
//
// A process started by init (or as a container's PID 1) has nothing to watch and keeps running; the CLI's
// --detached turns the watch off. On Windows a process keeps the id of its dead parent, so there this
// watch never fires.

const CHECK_INTERVAL_MS = 500;

/**
 * Calls onGone once `parent` (read with process.ppid when the process started: a start may take long, and
 * the parent may die meanwhile) is no longer this process's parent; at once if that has already happened.
 */
export function watchParent(onGone: () => void, parent: number, intervalMs = CHECK_INTERVAL_MS): void {
  if (parent <= 1) return;
  if (process.ppid !== parent) {
    onGone();
    return;
  }
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
}
