# Filled by the sanitizer work of issue 6: flags for TESSERA_SANITIZE.
