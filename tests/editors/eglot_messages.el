;;; The echo area with eglot and the docs' setup: an answer's first line and Tandem's own notes each marked as Tandem's once, and a new session that says so.  -*- lexical-binding: t -*-

(load (expand-file-name "emacs_lib.el" (getenv "TANDEM_TEST_SCRIPTS")) nil t)

(defvar tt-recording nil "Inside the recorder: what saving the record says is not recorded.")

;; What reaches the echo area and starts with "Tandem", as the user reads it.
(advice-add 'message :after
            (lambda (format &rest args)
              (when (and format (not tt-recording))
                (let ((text (apply #'format-message format args))
                      (tt-recording t))
                  (when (string-prefix-p "Tandem" text)
                    (tt-push "echoed" text))))))

(defun tt-main ()
  (load (getenv "TANDEM_TEST_SETUP") nil t t)
  (find-file (expand-file-name "answer.py" (getenv "TANDEM_TEST_ROOT")))
  (let ((eglot-sync-connect t))
    (call-interactively #'eglot))
  (tt-wait "the sidecar to start" (lambda () (eglot-current-server)))
  (tandem-ask "Look at it")
  (tt-wait "the answer" (lambda () (>= (tt-count "echoed") 1)))
  ;; Nothing changed: Tandem's own note says so.
  (tandem-undo)
  (tt-wait "the undo's note" (lambda () (>= (tt-count "echoed") 2)))
  (tandem-new-session)
  (tt-wait "the new session's note" (lambda () (>= (tt-count "echoed") 3))))

(tt-run #'tt-main
        #'tt-eglot-events)
