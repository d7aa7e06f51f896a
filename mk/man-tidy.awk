# Tidies scdoc 1.11's roff for mandoc -T lint: scdoc writes a .P after
# every block, also where no paragraph follows (before .RE, .SH or another
# .P, and after .SH), which lint reports as "skipping paragraph macro".
# A .P before .RE moves after it (the blank line between two options
# stays); a .P that starts nothing, or follows a heading, is dropped.
{ line[n++] = $0 }
END {
	for (i = 0; i + 1 < n; i++)
		if (line[i] == ".P" && line[i + 1] == ".RE") {
			line[i] = ".RE"; line[i + 1] = ".P"
		}
	prev = ""
	for (i = 0; i < n; i++) {
		if (line[i] == ".P") {
			next_line = i + 1 < n ? line[i + 1] : ".SH"
			if (next_line ~ /^\.(SH|SS|P|RE)( |$)/ || prev ~ /^\.(SH|SS|TH|P|RS)( |$)/)
				continue
		}
		print line[i]
		prev = line[i]
	}
}
