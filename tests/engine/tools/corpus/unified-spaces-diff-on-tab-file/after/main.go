func main() {
	if ok {
		run()
		log()
	}
}
