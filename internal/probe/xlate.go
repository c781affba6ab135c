package probe

// The translated structures that several providers give their arguments
// (DTrace's lwpsinfo_t, psinfo_t), with the members Linux can fill.
// Members DTrace documents that Linux cannot fill are absent, so that using
// one is a compile-time error naming it, not a silent zero.

// Offsets in the translated area (CtxXlate).
const (
	XlateLwp  = 0  // lwpsinfo_t: 16 bytes
	XlatePs   = 16 // psinfo_t: 40 bytes
	XlateBuf  = 64 // bufinfo_t: 40 bytes
	XlateDev  = 104
	XlateFile = 160
	XlateInt  = 240 // scalar arguments some probes add (a signal number)
)

// LwpsinfoT is lwpsinfo_t: the thread.
var LwpsinfoT = &Struct{Name: "lwpsinfo_t", Members: []Member{
	{Name: "pr_lwpid", Type: "id_t", Off: XlateLwp, Size: 4, Signed: true},
	{Name: "pr_pri", Type: "int", Off: XlateLwp + 4, Size: 4, Signed: true},
	{Name: "pr_onpro", Type: "processorid_t", Off: XlateLwp + 8, Size: 4, Signed: true},
}}

// PsinfoT is psinfo_t: the process.
var PsinfoT = &Struct{Name: "psinfo_t", Members: []Member{
	{Name: "pr_pid", Type: "pid_t", Off: XlatePs, Size: 4, Signed: true},
	{Name: "pr_ppid", Type: "pid_t", Off: XlatePs + 4, Size: 4, Signed: true},
	{Name: "pr_uid", Type: "uid_t", Off: XlatePs + 8, Size: 4},
	{Name: "pr_gid", Type: "gid_t", Off: XlatePs + 12, Size: 4},
	{Name: "pr_fname", Type: "char [16]", Kind: MemberString, Off: XlatePs + 16, Size: 16},
}}

// task is the path of Member.Task: fields of task_struct (a.b for an
// embedded one), then "->" to the structure a pointer leads to.
func task(path ...string) []FieldStep {
	steps := []FieldStep{{"task_struct", path[0]}}
	for i := 1; i+1 < len(path); i += 2 {
		steps = append(steps, FieldStep{path[i], path[i+1]})
	}
	return steps
}

// CurPsinfoT is the psinfo_t of curpsinfo: the process of the clause's
// subject thread, its members read from its task_struct where they are
// used. pr_psargs is the start of the command line (DTrace's 80 bytes,
// arguments separated by spaces), read from the process's memory.
var CurPsinfoT = &Struct{Name: "psinfo_t", Members: []Member{
	{Name: "pr_pid", Type: "pid_t", Size: 4, Signed: true, Task: task("tgid")},
	{Name: "pr_ppid", Type: "pid_t", Size: 4, Signed: true, Task: task("real_parent", "task_struct", "tgid")},
	{Name: "pr_uid", Type: "uid_t", Size: 4, Task: task("cred", "cred", "uid")},
	{Name: "pr_euid", Type: "uid_t", Size: 4, Task: task("cred", "cred", "euid")},
	{Name: "pr_gid", Type: "gid_t", Size: 4, Task: task("cred", "cred", "gid")},
	{Name: "pr_egid", Type: "gid_t", Size: 4, Task: task("cred", "cred", "egid")},
	{Name: "pr_nlwp", Type: "int", Size: 4, Signed: true, Task: task("signal", "signal_struct", "nr_threads")},
	{Name: "pr_dmodel", Type: "char", Size: 1, Task: task("mm", "mm_struct", "context.flags"), Dmodel: true},
	{Name: "pr_fname", Type: "char [16]", Kind: MemberString, Size: 16, Task: task("comm")},
	{Name: "pr_psargs", Type: "char [80]", Kind: MemberString, Size: 80, Psargs: true},
}}

// CurLwpsinfoT is the lwpsinfo_t of curlwpsinfo: the clause's subject
// thread.
var CurLwpsinfoT = &Struct{Name: "lwpsinfo_t", Members: []Member{
	{Name: "pr_lwpid", Type: "id_t", Size: 4, Signed: true, Task: task("pid")},
	{Name: "pr_pri", Type: "int", Size: 4, Signed: true, Task: task("prio")},
	{Name: "pr_onpro", Type: "processorid_t", Size: 4, Signed: true, Task: task("thread_info.cpu")},
	{Name: "pr_state", Type: "int", Size: 4, Signed: true, Task: task("__state")},
	{Name: "pr_name", Type: "char [16]", Kind: MemberString, Size: 16, Task: task("comm")},
}}

// FdsFileinfoT is the fileinfo_t of fds[n], as DTrace's io library
// translates it from the current process's descriptor n: each member read
// from the struct file where it is used. A descriptor that is not open
// reads as "<none>" and 0; a path that cannot be found from the process's
// root (a pipe, a socket, a file of a detached mount, deeper than the walk
// goes or longer than strsize) as "<unknown>".
var FdsFileinfoT = &Struct{Name: "fileinfo_t", Members: []Member{
	{Name: "fi_name", Type: "string", Kind: MemberString, Size: 256, Fd: true,
		File: []FieldStep{{"file", "f_path.dentry"}, {"dentry", "d_name.name"}}},
	{Name: "fi_dirname", Type: "string", Kind: MemberString, Size: 256, Fd: true, Path: PathDir},
	{Name: "fi_pathname", Type: "string", Kind: MemberString, Size: 256, Fd: true, Path: PathFull},
	{Name: "fi_offset", Type: "offset_t", Size: 8, Signed: true, Fd: true, File: []FieldStep{{"file", "f_pos"}}},
	{Name: "fi_fs", Type: "string", Kind: MemberString, Size: 256, Fd: true,
		File: []FieldStep{{"file", "f_path.dentry"}, {"dentry", "d_sb"}, {"super_block", "s_type"}, {"file_system_type", "name"}}},
	{Name: "fi_mount", Type: "string", Kind: MemberString, Size: 256, Fd: true, Path: PathMount},
	{Name: "fi_oflags", Type: "int", Size: 4, Signed: true, Fd: true, File: []FieldStep{{"file", "f_flags"}}},
}}
