/* A huge aggsize was accepted silently, or failed with a map error. */
/* @@opts: -x aggsize=64g */
/* @@status: 1 */
/* @@stderr: failed to set -x aggsize: 64g exceeds the maximum of 1g */
BEGIN { @[1] = count(); exit(0); }
