package check

// predefined are the integer constants DTrace's support libraries define
// as inlines (io.d, procfs.d, signal.d, errno.d), so that scripts written
// for DTrace find them.
var predefined = map[string]int64{
	// io.d: bufinfo_t b_flags
	"B_BUSY": 0x0001, "B_DONE": 0x0002, "B_ERROR": 0x0004, "B_PAGEIO": 0x0010,
	"B_PHYS": 0x0020, "B_READ": 0x0040, "B_WRITE": 0x0100, "B_ASYNC": 0x0400,
	// procfs.d / sys/wait.h: proc:::exit reasons
	"PR_MODEL_ILP32": 1, "PR_MODEL_LP64": 2,
	"CLD_EXITED": 1, "CLD_KILLED": 2, "CLD_DUMPED": 3, "CLD_TRAPPED": 4,
	"CLD_STOPPED": 5, "CLD_CONTINUED": 6,
	// signal.d (Linux numbers)
	"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6,
	"SIGBUS": 7, "SIGFPE": 8, "SIGKILL": 9, "SIGUSR1": 10, "SIGSEGV": 11, "SIGUSR2": 12,
	"SIGPIPE": 13, "SIGALRM": 14, "SIGTERM": 15, "SIGSTKFLT": 16, "SIGCHLD": 17,
	"SIGCONT": 18, "SIGSTOP": 19, "SIGTSTP": 20, "SIGTTIN": 21, "SIGTTOU": 22,
	"SIGURG": 23, "SIGXCPU": 24, "SIGXFSZ": 25, "SIGVTALRM": 26, "SIGPROF": 27,
	"SIGWINCH": 28, "SIGIO": 29, "SIGPWR": 30, "SIGSYS": 31,
	// errno.d (Linux numbers, the common ones)
	"EPERM": 1, "ENOENT": 2, "ESRCH": 3, "EINTR": 4, "EIO": 5, "ENXIO": 6, "E2BIG": 7,
	"ENOEXEC": 8, "EBADF": 9, "ECHILD": 10, "EAGAIN": 11, "ENOMEM": 12, "EACCES": 13,
	"EFAULT": 14, "EBUSY": 16, "EEXIST": 17, "EXDEV": 18, "ENODEV": 19, "ENOTDIR": 20,
	"EISDIR": 21, "EINVAL": 22, "ENFILE": 23, "EMFILE": 24, "ENOTTY": 25, "EFBIG": 27,
	"ENOSPC": 28, "ESPIPE": 29, "EROFS": 30, "EMLINK": 31, "EPIPE": 32, "EDOM": 33,
	"ERANGE": 34, "EDEADLK": 35, "ENAMETOOLONG": 36, "ENOSYS": 38, "ENOTEMPTY": 39,
	"ETIMEDOUT": 110, "ECONNREFUSED": 111, "EINPROGRESS": 115,
	// socket.d
	"AF_INET": 2, "AF_INET6": 10, "AF_UNIX": 1,
}
