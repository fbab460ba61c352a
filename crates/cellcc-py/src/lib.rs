fn _unused() {}
