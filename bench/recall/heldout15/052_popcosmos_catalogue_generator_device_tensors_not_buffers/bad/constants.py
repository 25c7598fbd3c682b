import numpy as np

# per-band flux softening parameters (nanomaggies), one per photometric band
SURVEY_FLUX_SOFTENING = np.array([0.0011, 0.0031, 0.0051, 0.0009, 0.0029, 0.0041, 0.0026, 0.0050])

PARAM_NAMES = ["N", "log10Z", "dust2", "dust_index", "lnfagn", "gaslog10U", "z"]
