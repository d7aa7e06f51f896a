// SPDX-License-Identifier: GPL-2.0
// Workload: THREADS Rust threads contend on one std::sync primitive for
// SECONDS (0: until killed), holding it for a 20 us section each time.
//   mutex_rs mutex|rwlock|condvar THREADS SECONDS
// mutex:   std::sync::Mutex, taken in bump_shared
// rwlock:  std::sync::RwLock, written in write_shared by all threads but
//          the last, which reads it in read_shared: the writers contend
// condvar: a std::sync::Condvar handing one item at a time to consumers
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

fn spin_for(us: u64) -> u64 {
    let t = Instant::now();
    let mut x = 0u64;
    while t.elapsed() < Duration::from_micros(us) {
        x = x.wrapping_mul(31).wrapping_add(1);
        std::hint::spin_loop();
    }
    x
}

#[inline(never)]
fn bump_shared(m: &Mutex<u64>) {
    let mut g = m.lock().unwrap();
    *g = g.wrapping_add(spin_for(20));
}

#[inline(never)]
fn write_shared(l: &RwLock<u64>) {
    let mut g = l.write().unwrap();
    *g = g.wrapping_add(spin_for(20));
}

#[inline(never)]
fn read_shared(l: &RwLock<u64>) -> u64 {
    let g = l.read().unwrap();
    *g + spin_for(5)
}

#[inline(never)]
fn take_item(q: &(Mutex<u64>, Condvar)) {
    let mut g = q.0.lock().unwrap();
    while *g == 0 {
        g = q.1.wait(g).unwrap();
    }
    *g -= 1;
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 4 {
        eprintln!("usage: mutex_rs mutex|rwlock|condvar THREADS SECONDS");
        std::process::exit(2);
    }
    let n: usize = a[2].parse().expect("THREADS");
    let secs: u64 = a[3].parse().expect("SECONDS");
    let end = Instant::now() + Duration::from_secs(if secs == 0 { 1 << 40 } else { secs });
    let m = Arc::new(Mutex::new(0u64));
    let l = Arc::new(RwLock::new(0u64));
    let q = Arc::new((Mutex::new(0u64), Condvar::new()));
    let mode = a[1].clone();
    let mut hs = Vec::new();
    for i in 0..n {
        let (m, l, q, mode) = (m.clone(), l.clone(), q.clone(), mode.clone());
        hs.push(std::thread::spawn(move || {
            while Instant::now() < end {
                match mode.as_str() {
                    "mutex" => bump_shared(&m),
                    "rwlock" if i + 1 < n => write_shared(&l),
                    "rwlock" => { read_shared(&l); }
                    _ => take_item(&q),
                }
            }
        }));
    }
    println!("ready");
    while mode == "condvar" && Instant::now() < end {
        *q.0.lock().unwrap() += 1;
        q.1.notify_all();
        spin_for(50);
    }
    if mode == "condvar" {
        *q.0.lock().unwrap() += 1 << 30;
        q.1.notify_all();
    }
    for h in hs {
        h.join().unwrap();
    }
}
