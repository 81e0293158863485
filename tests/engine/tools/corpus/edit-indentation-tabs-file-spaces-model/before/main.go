func main() {
	if ok {
		run()
	}
}
