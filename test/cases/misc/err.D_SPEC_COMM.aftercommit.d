/* a clause that commits may not also speculate */
BEGIN
{
	commit(1);
	speculate(2);
}
