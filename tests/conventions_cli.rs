//! Terminal and ecosystem conventions (issue 15): did-you-mean for unknown ids, man pages,
//! `dot -o`, clear errors for missing files and an empty `--mapped`.

use assert_cmd::Command;
use predicates::prelude::*;

fn laneplan() -> Command {
    Command::cargo_bin("laneplan").unwrap()
}

#[test]
fn did_you_mean_platforms_options_profiles_parts() {
    laneplan()
        .args(["show", "r740"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown platform `r740`"))
        .stderr(predicate::str::contains("did you mean `r740xd`?"));
    laneplan()
        .args(["bays", "r7451"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `r7415`?"));
    laneplan()
        .args(["show", "r740xd", "--option", "fornt=24"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `front`?"));
    laneplan()
        .args(["probe", "--profile", "4k-randrea", "--dry-run", "/dev/null"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `4k-randread`?"));
    laneplan()
        .args(["place", "r740xd", "--part", "perc-h740p-adaptor"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `perc-h740p-adapter`?"));
    // Nothing near: no guess.
    laneplan()
        .args(["show", "supermicro"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean").not());
}
