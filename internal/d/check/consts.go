package check

// predefined are the integer constants DTrace's support libraries define
// as inlines (io.d, procfs.d, signal.d, errno.d), so that scripts written
// for DTrace find them.
var predefined = map[string]int64{
	// DTrace's hard-wired "inline long NULL = 0" (see predefinedType)
	"NULL": 0,
	// io.d: bufinfo_t b_flags
	"B_BUSY": 0x0001, "B_DONE": 0x0002, "B_ERROR": 0x0004, "B_PAGEIO": 0x0010,
	"B_PHYS": 0x0020, "B_READ": 0x0040, "B_WRITE": 0x0100, "B_ASYNC": 0x0400,
	// procfs.d / sys/wait.h: proc:::exit reasons
	"PR_MODEL_ILP32": 1, "PR_MODEL_LP64": 2,
	"CLD_EXITED": 1, "CLD_KILLED": 2, "CLD_DUMPED": 3, "CLD_TRAPPED": 4,
	"CLD_STOPPED": 5, "CLD_CONTINUED": 6,
	// tcp.d (DTrace for Linux: the kernel's TCP state numbers) and the
	// TCP header's flags
	"TCP_STATE_IDLE": 0, "TCP_STATE_ESTABLISHED": 1, "TCP_STATE_SYN_SENT": 2,
	"TCP_STATE_SYN_RECEIVED": 3, "TCP_STATE_FIN_WAIT_1": 4, "TCP_STATE_FIN_WAIT_2": 5,
	"TCP_STATE_TIME_WAIT": 6, "TCP_STATE_CLOSED": 7, "TCP_STATE_CLOSE_WAIT": 8,
	"TCP_STATE_LAST_ACK": 9, "TCP_STATE_LISTEN": 10, "TCP_STATE_CLOSING": 11,
	"TH_FIN": 0x01, "TH_SYN": 0x02, "TH_RST": 0x04, "TH_PUSH": 0x08, "TH_ACK": 0x10,
	"TH_URG": 0x20, "TH_ECE": 0x40, "TH_CWR": 0x80,
	// signal.d (Linux numbers)
	"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6,
	"SIGBUS": 7, "SIGFPE": 8, "SIGKILL": 9, "SIGUSR1": 10, "SIGSEGV": 11, "SIGUSR2": 12,
	"SIGPIPE": 13, "SIGALRM": 14, "SIGTERM": 15, "SIGSTKFLT": 16, "SIGCHLD": 17,
	"SIGCONT": 18, "SIGSTOP": 19, "SIGTSTP": 20, "SIGTTIN": 21, "SIGTTOU": 22,
	"SIGURG": 23, "SIGXCPU": 24, "SIGXFSZ": 25, "SIGVTALRM": 26, "SIGPROF": 27,
	"SIGWINCH": 28, "SIGIO": 29, "SIGPWR": 30, "SIGSYS": 31,
	// the aliases of asm/signal.h (SIGCLD as Solaris and glibc spell it),
	// and the kernel's real-time range: a program's SIGRTMIN is glibc's
	// (34), which reserves two for threads, but the kernel numbers from 32
	"SIGIOT": 6, "SIGCLD": 17, "SIGPOLL": 29, "SIGRTMIN": 32, "SIGRTMAX": 64,
	// errno.d: every name of the kernel's uapi errno.h (asm-generic, the
	// same on x86-64 and arm64), with glibc's ENOTSUP
	"EPERM": 1, "ENOENT": 2, "ESRCH": 3, "EINTR": 4, "EIO": 5, "ENXIO": 6, "E2BIG": 7, "ENOEXEC": 8,
	"EBADF": 9, "ECHILD": 10, "EAGAIN": 11, "EWOULDBLOCK": 11, "ENOMEM": 12, "EACCES": 13,
	"EFAULT": 14, "ENOTBLK": 15, "EBUSY": 16, "EEXIST": 17, "EXDEV": 18, "ENODEV": 19, "ENOTDIR": 20,
	"EISDIR": 21, "EINVAL": 22, "ENFILE": 23, "EMFILE": 24, "ENOTTY": 25, "ETXTBSY": 26, "EFBIG": 27,
	"ENOSPC": 28, "ESPIPE": 29, "EROFS": 30, "EMLINK": 31, "EPIPE": 32, "EDOM": 33, "ERANGE": 34,
	"EDEADLK": 35, "EDEADLOCK": 35, "ENAMETOOLONG": 36, "ENOLCK": 37, "ENOSYS": 38, "ENOTEMPTY": 39,
	"ELOOP": 40, "ENOMSG": 42, "EIDRM": 43, "ECHRNG": 44, "EL2NSYNC": 45, "EL3HLT": 46, "EL3RST": 47,
	"ELNRNG": 48, "EUNATCH": 49, "ENOCSI": 50, "EL2HLT": 51, "EBADE": 52, "EBADR": 53, "EXFULL": 54,
	"ENOANO": 55, "EBADRQC": 56, "EBADSLT": 57, "EBFONT": 59, "ENOSTR": 60, "ENODATA": 61,
	"ETIME": 62, "ENOSR": 63, "ENONET": 64, "ENOPKG": 65, "EREMOTE": 66, "ENOLINK": 67, "EADV": 68,
	"ESRMNT": 69, "ECOMM": 70, "EPROTO": 71, "EMULTIHOP": 72, "EDOTDOT": 73, "EBADMSG": 74,
	"EOVERFLOW": 75, "ENOTUNIQ": 76, "EBADFD": 77, "EREMCHG": 78, "ELIBACC": 79, "ELIBBAD": 80,
	"ELIBSCN": 81, "ELIBMAX": 82, "ELIBEXEC": 83, "EILSEQ": 84, "ERESTART": 85, "ESTRPIPE": 86,
	"EUSERS": 87, "ENOTSOCK": 88, "EDESTADDRREQ": 89, "EMSGSIZE": 90, "EPROTOTYPE": 91,
	"ENOPROTOOPT": 92, "EPROTONOSUPPORT": 93, "ESOCKTNOSUPPORT": 94, "ENOTSUP": 95, "EOPNOTSUPP": 95,
	"EPFNOSUPPORT": 96, "EAFNOSUPPORT": 97, "EADDRINUSE": 98, "EADDRNOTAVAIL": 99, "ENETDOWN": 100,
	"ENETUNREACH": 101, "ENETRESET": 102, "ECONNABORTED": 103, "ECONNRESET": 104, "ENOBUFS": 105,
	"EISCONN": 106, "ENOTCONN": 107, "ESHUTDOWN": 108, "ETOOMANYREFS": 109, "ETIMEDOUT": 110,
	"ECONNREFUSED": 111, "EHOSTDOWN": 112, "EHOSTUNREACH": 113, "EALREADY": 114, "EINPROGRESS": 115,
	"ESTALE": 116, "EUCLEAN": 117, "ENOTNAM": 118, "ENAVAIL": 119, "EISNAM": 120, "EREMOTEIO": 121,
	"EDQUOT": 122, "ENOMEDIUM": 123, "EMEDIUMTYPE": 124, "ECANCELED": 125, "ENOKEY": 126,
	"EKEYEXPIRED": 127, "EKEYREVOKED": 128, "EKEYREJECTED": 129, "EOWNERDEAD": 130,
	"ENOTRECOVERABLE": 131, "ERFKILL": 132, "EHWPOISON": 133,
	// unistd.d: the fault codes of the ERROR probe's arg4
	"DTRACEFLT_UNKNOWN": 0, "DTRACEFLT_BADADDR": 1, "DTRACEFLT_BADALIGN": 2, "DTRACEFLT_ILLOP": 3,
	"DTRACEFLT_DIVZERO": 4, "DTRACEFLT_NOSCRATCH": 5, "DTRACEFLT_KPRIV": 6, "DTRACEFLT_UPRIV": 7,
	"DTRACEFLT_TUPOFLOW": 8, "DTRACEFLT_BADSTACK": 9, "DTRACEFLT_LIBRARY": 1000,
	// socket.d
	"AF_INET": 2, "AF_INET6": 10, "AF_UNIX": 1,
}

// predefinedType is the type of a predefined constant: NULL is a long, as
// DTrace declares it; the others are ints.
func predefinedType(name string) *Type {
	if name == "NULL" {
		return TLong
	}
	return TInt
}
