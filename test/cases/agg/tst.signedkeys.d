/* Integer keys sort as unsigned values; 8- and 16-bit keys print unsigned, 32- and 64-bit signed. */
#pragma D option quiet
#pragma D option aggsortkey
BEGIN
{
	@i8[(char)-2] = sum(-2); @i8[(char)-1] = sum(-1); @i8[(char)0] = sum(0); @i8[(char)1] = sum(1); @i8[(char)2] = sum(2);
	@i16[(short)-2] = sum(-2); @i16[(short)-1] = sum(-1); @i16[(short)0] = sum(0); @i16[(short)1] = sum(1); @i16[(short)2] = sum(2);
	@i32[-2] = sum(-2); @i32[-1] = sum(-1); @i32[0] = sum(0); @i32[1] = sum(1); @i32[2] = sum(2);
	@i64[(long long)-2] = sum(-2); @i64[(long long)-1] = sum(-1); @i64[(long long)0] = sum(0); @i64[(long long)1] = sum(1); @i64[(long long)2] = sum(2);
	exit(0);
}
