"""A few seconds of bench/sequential_sim.py, so that the simulation behind docs/benchmarks.md keeps working."""

from bench import sequential_sim


def test_the_simulation_runs_and_reports_every_method(tmp_path, capsys):
    out = tmp_path / "figures.json"
    figures = sequential_sim.main(
        ["--campaigns", "6", "--systems", "4", "--instances", "80", "--chunk", "3", "--json", str(out)]
    )
    cell = figures["cells"][4]
    assert set(cell) == {"a", "c", "d", "seconds"} and out.exists()
    for method in ("a", "c", "d"):
        assert cell[method]["campaigns"] == 6 and 0 <= cell[method]["false_upper"] <= 1
    # Racing never uses more ratings than rating every system to the same stop.
    assert cell["d"]["ratings_at_stop"] <= cell["c"]["ratings_at_stop"]
    assert "(d) (c) + racing" in capsys.readouterr().out


def test_the_means_carry_an_exact_tie_and_a_near_tie():
    means, clones = sequential_sim.system_means(10)
    assert len(means) == 10 and means[8] == means[clones[8]] and means[9] == means[clones[9]] - sequential_sim.NEAR_TIE
