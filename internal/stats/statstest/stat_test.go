package statstest

import "syscall"

// syscallStat is the device a file lives on.
type syscallStat struct{ major, minor uint32 }

func stat(path string, st *syscallStat) error {
	var s syscall.Stat_t
	if err := syscall.Stat(path, &s); err != nil {
		return err
	}
	st.major = uint32((s.Dev >> 8) & 0xfff)
	st.minor = uint32((s.Dev & 0xff) | ((s.Dev >> 12) & 0xfff00))
	return nil
}
