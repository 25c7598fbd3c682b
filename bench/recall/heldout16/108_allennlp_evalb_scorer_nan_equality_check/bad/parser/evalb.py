import math
import os
import re
import subprocess
import tempfile


class EvalbBracketingScorer:
    """Runs the external EVALB program on predicted and gold trees and averages its scores."""

    def __init__(self, evalb_directory_path, evalb_param_filename="COLLINS.prm"):
        self._evalb_program_path = os.path.join(evalb_directory_path, "evalb")
        self._evalb_param_path = os.path.join(evalb_directory_path, evalb_param_filename)
        self._recall_regex = re.compile(r"Bracketing Recall\s+=\s+(\d+\.\d+)")
        self._precision_regex = re.compile(r"Bracketing Precision\s+=\s+(\d+\.\d+)")
        self._f1_measure_regex = re.compile(r"Bracketing FMeasure\s+=\s+(\d+\.\d+)")
        self.reset()

    def __call__(self, predicted_trees, gold_trees):
        tempdir = tempfile.gettempdir()
        gold_path = os.path.join(tempdir, "gold.txt")
        predicted_path = os.path.join(tempdir, "predicted.txt")
        output_path = os.path.join(tempdir, "output.txt")
        with open(gold_path, "w") as gold_file:
            gold_file.writelines(f"{tree}\n" for tree in gold_trees)
        with open(predicted_path, "w") as predicted_file:
            predicted_file.writelines(f"{tree}\n" for tree in predicted_trees)
        command = f"{self._evalb_program_path} -p {self._evalb_param_path} {gold_path} {predicted_path} > {output_path}"
        subprocess.run(command, shell=True, check=True)

        recall = precision = fmeasure = math.nan
        with open(output_path) as infile:
            for line in infile:
                if match := self._recall_regex.match(line):
                    recall = float(match.group(1))
                if match := self._precision_regex.match(line):
                    precision = float(match.group(1))
                if match := self._f1_measure_regex.match(line):
                    fmeasure = float(match.group(1))
                    break
        if any([recall == math.nan, precision == math.nan, fmeasure == math.nan]):  # expect: TCK702
            raise RuntimeError(f"Call to EVALB produced invalid metrics: recall: {recall}, precision: {precision}, fmeasure: {fmeasure}")
        self._precision += precision / 100.0
        self._recall += recall / 100.0
        self._f1_measure += fmeasure / 100.0
        self._count += 1

    def get_metric(self, reset=False):
        metrics = {
            "evalb_precision": self._precision / self._count if self._count > 0 else 0.0,
            "evalb_recall": self._recall / self._count if self._count > 0 else 0.0,
            "evalb_f1_measure": self._f1_measure / self._count if self._count > 0 else 0.0,
        }
        if reset:
            self.reset()
        return metrics

    def reset(self):
        self._precision = 0.0
        self._recall = 0.0
        self._f1_measure = 0.0
        self._count = 0
