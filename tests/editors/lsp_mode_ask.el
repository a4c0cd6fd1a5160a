;;; The docs' lsp-mode setup (TANDEM_TEST_SETUP) in batch Emacs with the real lsp-mode  -*- lexical-binding: t -*-
;;; (Debian's elpa-lsp-mode): ask about a region, then ask again and cancel with the docs'
;;; commands. Writes what lsp-mode showed as JSON to TANDEM_TEST_RESULTS.

;; What an interactive Emacs does at startup and batch mode skips: the packages' autoloads
;; (lsp-mode's modeline and headerline modes are autoloaded).
(package-activate-all)

(load (expand-file-name "emacs_lib.el" (getenv "TANDEM_TEST_SCRIPTS")) nil t)

(defun tt-workspace ()
  (lsp-find-workspace 'tandem (buffer-file-name)))

(defun tt-main ()
  (let ((root (getenv "TANDEM_TEST_ROOT")))
    ;; The snippet first (it waits for lsp-mode with `with-eval-after-load'), then lsp-mode.
    (load (getenv "TANDEM_TEST_SETUP") nil t t)
    (require 'lsp-mode)
    ;; What lsp-mode shows, recorded before it shows it.
    (advice-add 'tandem-lsp--show-answer :before
                (lambda (_workspace params)
                  (tt-push "messages" (lsp-get params :message))))
    ;; A user answers "import this project?" once; here the project is known beforehand.
    (lsp-workspace-folders-add root)
    (find-file (expand-file-name "hello.py" root))
    (lsp)
    (tt-wait "tandem to start"
             (lambda () (when-let ((ws (tt-workspace)))
                          (eq (lsp--workspace-status ws) 'initialized))))

    ;; Ask about the first two lines, selected.
    (transient-mark-mode 1)
    (goto-char (point-min))
    (push-mark (point) t t)
    (forward-line 2)
    (tandem-lsp-ask "Explain these lines")
    (deactivate-mark)
    (tt-wait "the answer" (lambda () (>= (length (gethash "messages" tt-record [])) 1)))

    ;; Ask again; cancel once the turn has begun (its progress shows in lsp-mode).
    (tt-wait "the first turn's progress to end"
             (lambda () (= (hash-table-count (lsp--workspace-work-done-tokens (tt-workspace))) 0)))
    (tandem-lsp-ask "Think it over")
    (tt-wait "the second turn to start"
             (lambda () (> (hash-table-count (lsp--workspace-work-done-tokens (tt-workspace))) 0)))
    (tandem-lsp-cancel)
    (tt-wait "the end of the cancelled turn"
             (lambda () (>= (length (gethash "messages" tt-record [])) 2)))))

(tt-run #'tt-main
        #'tt-lsp-log)
