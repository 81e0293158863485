fn a() {
}

fn b() {
}
