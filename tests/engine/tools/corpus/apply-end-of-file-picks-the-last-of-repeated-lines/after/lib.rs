fn a() {
}

fn b() {
}

fn c() {
}
