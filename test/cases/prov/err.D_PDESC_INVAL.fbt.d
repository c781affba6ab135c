/* @@stderr: needs kprobes */
fbt::vfs_read:entry { @ = count(); }
