   ID   PROVIDER            MODULE                          FUNCTION NAME
 *\d+    syscall                                              openat entry

	Probe Description Attributes
		Identifier Names: Private
		Data Semantics:   Private
		Dependency Class: ISA

	Argument Attributes
		Identifier Names: Private
		Data Semantics:   Private
		Dependency Class: ISA

	Argument Types
		args\[0\]: int
		args\[1\]: const char \*
		args\[2\]: int
		args\[3\]: umode_t

