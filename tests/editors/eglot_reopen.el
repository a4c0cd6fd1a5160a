;;; eglot with the docs' setup: C-g in the question rejects at once and the diff closes, the  -*- lexical-binding: t -*-
;;; question and the diff in windows of their own, the answers scrolled to the latest, progress
;;; in the mode line; after a restart (TANDEM_TEST_PHASE=resume) the session is reopened.

(load (expand-file-name "emacs_lib.el" (getenv "TANDEM_TEST_SCRIPTS")) nil t)

;; What the server sends, recorded before the docs' handlers show it.
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/showMessage)) &key message &allow-other-keys)
  (tt-push "messages" message))
(cl-defmethod eglot-handle-request :before
  (_server (_method (eql window/showMessageRequest)) &key message &allow-other-keys)
  (tt-push "questions" message))
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql $/progress)) &key value &allow-other-keys)
  (tt-push "progress" (list :kind (plist-get value :kind) :message (or (plist-get value :message) ""))))
(cl-defmethod eglot-handle-notification :after
  (_server (_method (eql $/progress)) &rest _)
  (tt-push "mode_line" (or tandem--progress "")))

(defun tt-start ()
  (load (getenv "TANDEM_TEST_SETUP") nil t t)
  (find-file (expand-file-name "answer.py" (getenv "TANDEM_TEST_ROOT")))
  (let ((eglot-sync-connect t))
    (call-interactively #'eglot))
  (tt-wait "the sidecar to start" (lambda () (eglot-current-server))))

(tt-run (lambda ()
          (tt-start)
          (if (equal (getenv "TANDEM_TEST_PHASE") "resume")
              (tt-resume-story #'tandem-resume #'tandem-ask)
            (tt-question-story #'tandem-ask (lambda () tandem--diff-window))))
        #'tt-eglot-events)
