"""ComVE-Eval: human evaluation of generated explanations (SemEval-2020 Task 4, Subtask C)."""
