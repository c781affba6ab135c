/* -i takes a probe ID; one that no probe has is an error naming it. */
/* @@opts: -l -i 4000000000 */
/* @@status: 1 */
/* @@stderr: invalid probe specifier 4000000000: no probe has ID 4000000000 */
BEGIN
