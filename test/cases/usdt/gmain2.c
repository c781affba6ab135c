/* A program with no header: its one semaphore comes from sonde -G's object. */
int legacy_enabled(void);

int main(void)
{
	return legacy_enabled();
}
