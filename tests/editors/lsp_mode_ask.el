;;; The docs' lsp-mode setup (TANDEM_TEST_SETUP) in batch Emacs with the real lsp-mode  -*- lexical-binding: t -*-
;;; (Debian's elpa-lsp-mode): ask about a region, then ask again and cancel with the docs'
;;; commands. Writes what lsp-mode showed as JSON to TANDEM_TEST_RESULTS.

;; What an interactive Emacs does at startup and batch mode skips: the packages' autoloads
;; (lsp-mode's modeline and headerline modes are autoloaded).
(package-activate-all)

(require 'json)
(require 'cl-lib)
(require 'subr-x)

(defvar tt-record (make-hash-table :test 'equal))

(defun tt-save ()
  (with-temp-file (getenv "TANDEM_TEST_RESULTS")
    (insert (json-encode tt-record))))

(defun tt-push (key value)
  (puthash key (vconcat (gethash key tt-record []) (vector value)) tt-record)
  (tt-save))

(defun tt-wait (what predicate)
  (tt-push "steps" (concat "wait for " what))
  (let ((deadline (+ (float-time) 60)))
    (while (not (funcall predicate))
      (when (> (float-time) deadline)
        (error "timed out waiting for %s" what))
      (accept-process-output nil 0.05))))

(defun tt-workspace ()
  (lsp-find-workspace 'tandem (buffer-file-name)))

(defun tt-main ()
  (let ((root (getenv "TANDEM_TEST_ROOT")))
    ;; The snippet first (it waits for lsp-mode with `with-eval-after-load'), then lsp-mode.
    (load (getenv "TANDEM_TEST_SETUP") nil t t)
    (require 'lsp-mode)
    ;; What lsp-mode shows, recorded before it shows it.
    (advice-add 'lsp--window-show-message :before
                (lambda (_workspace params)
                  (tt-push "messages" (if (hash-table-p params)
                                         (gethash "message" params)
                                       (plist-get params :message)))))
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

(let ((ok (condition-case err
              (progn (tt-main) t)
            (error (puthash "error" (format "%S" err) tt-record)
                   (when-let ((log (get-buffer "*lsp-log*")))
                     (puthash "lsp_log" (with-current-buffer log (buffer-string)) tt-record))
                   nil))))
  (when ok (puthash "finished" t tt-record))
  (tt-save)
  (kill-emacs (if ok 0 1)))
