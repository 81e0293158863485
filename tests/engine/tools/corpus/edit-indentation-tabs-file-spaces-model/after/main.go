func main() {
	if ok {
		run()
		if verbose {
			log()
		}
	}
}
