package test

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestGetMajorMinor checks getmajor() and getminor() of a real device
// number, the kernel's s_dev of the file system that holds a running
// program, against stat(2)'s st_dev of that program, decoded by
// glibc's encoding (an independent path to the same device).
func TestGetMajorMinor(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(sleep, &st); err != nil {
		t.Fatal(err)
	}
	dev := st.Dev
	major := (dev>>8)&0xfff | (dev>>32)&^0xfff
	minor := dev&0xff | (dev>>12)&^0xff
	out, err := exec.Command(sonde, "-qn", `syscall::nanosleep:entry, syscall::clock_nanosleep:entry /pid == $target/ {
		this->d = curthread->mm->exe_file->f_inode->i_sb->s_dev;
		printf("%d:%d\n", getmajor(this->d), getminor(this->d)); }`, "-c", sleep+" 0.1").Output()
	if err != nil {
		t.Fatalf("sonde: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), fmt.Sprintf("%d:%d", major&0xffffffff, minor&0xffffffff); got != want {
		t.Errorf("getmajor:getminor = %q, want %q (stat of %s)", got, want, sleep)
	}
}
